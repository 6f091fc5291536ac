package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.retry.DelayedRetry;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  private static List<String> lines(String yaml) {
    TaskFile.Result r = TaskFile.parse(yaml, "tasks.yaml");
    assertThat(r.valid()).as("expected problems").isFalse();
    assertThat(r.definitions()).isEmpty();
    return r.problems().stream().map(TaskFile.FileProblem::line).toList();
  }

  private static String task(String id, String extra) {
    return "tasks:\n  - id: "
        + id
        + "\n    handler: noop\n    schedule: { cron: \"0 0 8 * * ?\", zone: UTC }\n"
        + extra;
  }

  @Test
  void the_documented_example_reads_into_one_complete_definition() {
    TaskFile.Result r = TaskFile.parse(EXAMPLE);
    assertThat(r.problems()).isEmpty();
    TaskDefinition d = r.definitions().get(0);
    assertThat(d.id()).isEqualTo("daily-digest");
    assertThat(d.handler()).isEqualTo("digest");
    assertThat(d.trigger().cron()).isEqualTo("0 0 8 * * ?");
    assertThat(d.trigger().zone()).isEqualTo(ZoneId.of("Asia/Shanghai"));
    assertThat(d.trigger().window()).isEqualTo(WindowKind.DAILY);
    assertThat(d.overlap()).isEqualTo(OverlapPolicy.SKIP);
    assertThat(d.catchup()).isEqualTo(Duration.ofHours(1));
    assertThat(d.timeout()).isEqualTo(Duration.ofMinutes(20));
    assertThat(d.retry())
        .isEqualTo(
            new DelayedRetry(
                List.of(Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30)), 3));
    assertThat(d.paramsJson()).isEqualTo("{\"channel\":\"#news\"}");
  }

  @Test
  void iso_and_short_durations_are_both_accepted() {
    TaskFile.Result r = TaskFile.parse(task("t", "    catchup: PT5M\n    timeout: 1h30m\n"));
    assertThat(r.problems()).isEmpty();
    assertThat(r.definitions().get(0).catchup()).isEqualTo(Duration.ofMinutes(5));
    assertThat(r.definitions().get(0).timeout()).isEqualTo(Duration.ofMinutes(90));
  }

  @Test
  void every_problem_of_every_task_is_reported_with_task_field_and_value() {
    String yaml =
        """
        tasks:
          - id: bad-cron
            handler: noop
            schedule: { cron: "61 * * * * ?", zone: UTC }
          - id: bad-zone
            handler: noop
            schedule: { cron: "0 0 8 * * ?", zone: Mars/Olympus }
          - id: Bad_ID!
            handler: noop
            schedule: { cron: "0 0 8 * * ?", zone: UTC }
          - id: bad-durations
            handler: noop
            schedule: { cron: "0 0 8 * * ?", zone: UTC }
            catchup: PT-5M
            timeout: 400d
          - id: bad-retry
            handler: noop
            schedule: { cron: "0 0 8 * * ?", zone: UTC }
            retry: { policy: SOMETIMES }
        """;
    assertThat(lines(yaml))
        .anySatisfy(
            l -> assertThat(l).startsWith("task 'bad-cron': schedule.cron='61 * * * * ?': "))
        .anySatisfy(
            l ->
                assertThat(l)
                    .isEqualTo(
                        "task 'bad-zone': schedule.zone='Mars/Olympus': is not an IANA time zone"))
        .anySatisfy(l -> assertThat(l).startsWith("task 'Bad_ID!': id='Bad_ID!': must match"))
        .anySatisfy(
            l -> assertThat(l).startsWith("task 'bad-durations': catchup='PT-5M': must be between"))
        .anySatisfy(
            l -> assertThat(l).startsWith("task 'bad-durations': timeout='400d': must be between"))
        .anySatisfy(
            l -> assertThat(l).startsWith("task 'bad-retry': retry.policy='SOMETIMES': must be"));
  }

  @Test
  void a_bare_number_is_not_a_duration_and_an_overflowing_one_is_refused_not_thrown() {
    assertThat(lines(task("t", "    timeout: 300\n")))
        .containsExactly("task 't': timeout='300': a number needs a unit, e.g. 5m, 1h or PT5M");
    assertThat(lines(task("t", "    catchup: 99999999999999999d\n")))
        .singleElement()
        .satisfies(l -> assertThat(l).startsWith("task 't': catchup='99999999999999999d': "));
    assertThat(lines(task("t", "    retry: { policy: DELAYED, delays: [9999999999999999d] }\n")))
        .singleElement()
        .satisfies(l -> assertThat(l).startsWith("task 't': retry"));
  }

  @Test
  void unknown_keys_are_named_at_every_level() {
    String yaml =
        """
        taks: []
        tasks:
          - id: t
            handler: noop
            timout: 5m
            paused: true
            schedule: { cron: "0 0 8 * * ?", zone: UTC, windw: DAILY }
            retry: { policy: IMMEDIATE, delays: [5m] }
        """;
    assertThat(lines(yaml))
        .anySatisfy(l -> assertThat(l).startsWith("tasks.yaml: taks='[]': unknown key"))
        .anySatisfy(l -> assertThat(l).startsWith("task 't': timout='5m': unknown key (known:"))
        .anySatisfy(l -> assertThat(l).contains("task 't': paused='true': is not a file key; use"))
        .anySatisfy(l -> assertThat(l).startsWith("task 't': schedule.windw='DAILY': unknown key"))
        .anySatisfy(
            l -> assertThat(l).startsWith("task 't': retry.delays='[5m]': not used by policy"));
  }

  @Test
  void a_duplicate_id_names_both_positions() {
    String yaml = task("dup", "") + task("dup", "").replace("tasks:\n", "");
    assertThat(lines(yaml))
        .containsExactly(
            "task 'dup': id='dup': appears more than once in the file (tasks[0] and tasks[1])");
  }

  @Test
  void yaml_that_does_not_parse_is_reported_with_line_and_column() {
    assertThat(lines("tasks:\n  - id: a\n    handler: [unclosed\n"))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .matches("tasks\\.yaml: line \\d+, column \\d+: is not valid YAML: .+"));
    assertThat(lines("tasks:\n  - id: a\n    id: b\n"))
        .singleElement()
        .satisfies(l -> assertThat(l).contains("line 3").contains("Duplicate field 'id'"));
  }

  @Test
  void a_second_yaml_document_is_refused_rather_than_ignored() {
    assertThat(lines(task("a", "") + "---\n" + task("b", "")))
        .singleElement()
        .asString()
        .contains("tasks.yaml: line");
  }

  @Test
  void the_shape_of_the_file_is_checked() {
    assertThat(lines("")).containsExactly("tasks.yaml: is empty; expected 'tasks:' and a list");
    assertThat(lines("- a\n- b\n"))
        .containsExactly("tasks.yaml: must be a mapping with the key 'tasks', not a list");
    assertThat(lines("tasks: nope\n"))
        .containsExactly("tasks.yaml: tasks='nope': must be a list, not 'nope'");
    assertThat(lines("tasks:\n  - just-a-string\n"))
        .containsExactly("tasks[0]: must be a mapping (id, handler, schedule ...)");
    assertThat(lines("tasks:\n  - handler: noop\n    schedule: 0 0 8 * * ?\n"))
        .anySatisfy(l -> assertThat(l).startsWith("tasks[0]: id=<missing>: must match"))
        .anySatisfy(l -> assertThat(l).startsWith("tasks[0]: schedule='0 0 8 * * ?': must be a"));
  }

  @Test
  void a_ten_megabyte_params_blob_is_refused_by_size_naming_the_task_and_field() {
    String blob = "x".repeat(10 * 1024 * 1024);
    String flow =
        task("ok", "")
            + task("big", "    params: { blob: \"" + blob + "\" }\n").replace("tasks:\n", "");
    assertThat(lines(flow))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("task 'big': params='<10485786 bytes from line 8>': makes the file")
                    .contains("params at most 65536 bytes per task"));
    String block =
        task("big", "    params:\n      blob: |\n        " + blob + "\n    timeout: 5m\n");
    assertThat(lines(block))
        .singleElement()
        .satisfies(
            l -> assertThat(l).startsWith("task 'big': params='<10485").contains("from line 5"));
  }

  @Test
  void params_over_the_limit_but_under_the_file_cap_are_refused_by_the_model_rule() {
    String blob = "x".repeat(100_000);
    assertThat(lines(task("big", "    params: { blob: \"" + blob + "\" }\n")))
        .containsExactly(
            "task 'big': params='<100011 bytes>': is larger than 65536 bytes; keep large inputs in"
                + " an artifact store");
  }

  @Test
  void a_file_is_read_from_disk_and_a_missing_one_is_a_problem_not_an_exception(@TempDir Path dir)
      throws Exception {
    Path f = dir.resolve("tasks.yaml");
    Files.writeString(f, EXAMPLE);
    assertThat(TaskFile.parse(f).orThrow())
        .extracting(TaskDefinition::id)
        .containsExactly("daily-digest");
    TaskFile.Result missing = TaskFile.parse(dir.resolve("nope.yaml"));
    assertThat(missing.problems())
        .singleElement()
        .extracting(TaskFile.FileProblem::line)
        .asString()
        .contains("nope.yaml: cannot be read");
    assertThatThrownBy(missing::orThrow).hasMessageContaining("cannot be read");
  }
}
