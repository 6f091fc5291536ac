package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.task.TaskDefinition;
import dev.carillon.spec.InvalidSpecException;
import dev.carillon.spec.SpecProblem;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code TaskFile} adds to the spec reader: the file. The format's rules and messages are
 * tested in {@code dev.carillon.spec.SpecReaderTest}.
 */
class TaskFileTest {
  static final String EXAMPLE =
      """
      tasks:
        - id: daily-digest
          handler: digest
          schedule: { cron: "0 0 8 * * ?", zone: Asia/Shanghai, window: DAILY }
          overlap: SKIP
          catchup: 1h
          timeout: 20m
          retry: { policy: DELAYED, delays: [5m, 15m, 30m], maxRetries: 3 }
          params: { channel: "#news" }
      """;

  @Test
  void a_file_is_read_from_disk_and_a_missing_one_is_a_problem_not_a_crash(@TempDir Path dir)
      throws Exception {
    Path f = dir.resolve("tasks.yaml");
    Files.writeString(f, EXAMPLE);
    assertThat(TaskFile.read(f)).extracting(TaskDefinition::id).containsExactly("daily-digest");
    Path missing = dir.resolve("nope.yaml");
    assertThatThrownBy(() -> TaskFile.read(missing))
        .isInstanceOfSatisfying(
            InvalidSpecException.class,
            e ->
                assertThat(e.problems())
                    .singleElement()
                    .extracting(SpecProblem::text)
                    .asString()
                    .startsWith(missing + ": cannot be read: "));
  }

  @Test
  void a_json_file_is_read_as_json_and_its_problems_name_the_file_line_and_column(@TempDir Path dir)
      throws Exception {
    Path f = dir.resolve("tasks.json");
    Files.writeString(
        f,
        """
        {"tasks": [{"id": "daily-digest", "handler": "digest",
                    "schedule": {"cron": "0 0 8 * * ?", "zone": "Asia/Shanghai"}}]}
        """);
    assertThat(TaskFile.read(f)).extracting(TaskDefinition::id).containsExactly("daily-digest");
    Files.writeString(f, "{\"tasks\": [{\"id\": \"t\", \"handler\": \"noop\", \"after\": 5m}]}");
    assertThatThrownBy(() -> TaskFile.read(f))
        .isInstanceOf(InvalidSpecException.class)
        .hasMessageStartingWith(f + ":1:")
        .hasMessageContaining("is not valid JSON");
  }

  @Test
  void a_file_far_over_the_limit_is_refused_before_it_is_read(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("huge.yaml");
    try (var out = Files.newOutputStream(f)) {
      byte[] line = ("# " + "x".repeat(1021) + "\n").getBytes();
      for (int i = 0; i < 33 * 1024; i++) {
        out.write(line);
      }
    }
    assertThatThrownBy(() -> TaskFile.read(f))
        .isInstanceOf(InvalidSpecException.class)
        .hasMessage(f + ": is 34603008 bytes; a task file may hold at most 2097152");
  }
}
