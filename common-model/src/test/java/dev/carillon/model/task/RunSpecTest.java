package dev.carillon.model.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.schedule.WindowKind;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class RunSpecTest {
  @Test
  void handler_and_params_follow_the_rules_of_a_definition() {
    assertThatThrownBy(() -> new RunSpec("t", "Bad Handler", "{}", 1))
        .isInstanceOf(InvalidTaskException.class)
        .hasMessageContaining("handler")
        .hasMessageContaining("Bad Handler");
    assertThatThrownBy(() -> new RunSpec("t", "noop", "[1,2]", 1))
        .isInstanceOfSatisfying(
            InvalidTaskException.class,
            e -> {
              assertThat(e.taskId()).isEqualTo("t");
              assertThat(e.problems()).extracting(Problem::field).containsExactly("params");
            })
        .hasMessageContaining("[1,2]");
    assertThat(new RunSpec("t", "noop", null, 1).paramsJson()).isEqualTo("{}");
  }

  @Test
  void taken_from_a_definition_it_keeps_handler_params_and_version() {
    TaskDefinition d =
        TaskDefinition.builder("digest")
            .handler("digest.post")
            .cron("0 0 8 * * ?", ZoneId.of("Europe/Berlin"), WindowKind.DAILY)
            .paramsJson("{\"channel\":\"#news\"}")
            .version(7)
            .build();

    assertThat(RunSpec.of(d))
        .isEqualTo(new RunSpec("digest", "digest.post", "{\"channel\":\"#news\"}", 7));
  }
}
