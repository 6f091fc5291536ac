package dev.carillon.model.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.schedule.WindowKind;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TaskDefinitionTest {

  private static TaskDefinition.Builder valid() {
    return TaskDefinition.builder("daily-digest")
        .handler("digest")
        .cron("0 0 8 * * ?")
        .zone("Asia/Shanghai")
        .window("DAILY");
  }

  private static List<Problem> problemsOf(TaskDefinition.Builder b) {
    try {
      b.build();
    } catch (InvalidTaskException e) {
      return e.problems();
    }
    throw new AssertionError("expected the definition to be refused");
  }

  @Test
  void a_valid_definition_gets_the_documented_defaults() {
    TaskDefinition d = valid().build();
    assertThat(d.id()).isEqualTo("daily-digest");
    assertThat(d.trigger().zone()).isEqualTo(ZoneId.of("Asia/Shanghai"));
    assertThat(d.trigger().window()).isEqualTo(WindowKind.DAILY);
    assertThat(d.overlap()).isEqualTo(OverlapPolicy.SKIP);
    assertThat(d.catchup()).isEqualTo(Duration.ofHours(1));
    assertThat(d.timeout()).isEqualTo(TaskDefinition.DEFAULT_TIMEOUT);
    assertThat(d.retry().kind()).isEqualTo("NONE");
    assertThat(d.paramsJson()).isEqualTo("{}");
    assertThat(d.paused()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "Daily", "-x", "a b", "x/y", "é"})
  void a_bad_task_id_is_refused_naming_the_field_and_value(String id) {
    assertThat(problemsOf(TaskDefinition.builder(id).handler("h").cron("0 0 8 * * ?").zone("UTC")))
        .anySatisfy(
            p -> {
              assertThat(p.field()).isEqualTo("id");
              assertThat(p.value()).isEqualTo(id);
            });
  }

  @Test
  void an_id_of_64_characters_is_accepted_and_65_is_refused() {
    String ok = "a".repeat(64);
    assertThat(valid().build()).isNotNull();
    assertThat(TaskDefinition.builder(ok).handler("h").cron("0 0 8 * * ?").zone("UTC").build().id())
        .isEqualTo(ok);
    assertThat(
            problemsOf(
                TaskDefinition.builder(ok + "a").handler("h").cron("0 0 8 * * ?").zone("UTC")))
        .extracting(Problem::field)
        .containsExactly("id");
  }

  @Test
  void every_problem_is_reported_at_once() {
    List<Problem> problems =
        problemsOf(
            TaskDefinition.builder("BAD")
                .handler("")
                .cron("0 0 8 * * ?")
                .zone("Mars/Olympus")
                .window("FORTNIGHTLY")
                .overlap("SOMETIMES")
                .catchup("soon")
                .timeout("-5m"));
    assertThat(problems)
        .extracting(Problem::field)
        .contains(
            "id", "handler", "schedule.zone", "schedule.window", "overlap", "catchup", "timeout");
    assertThat(problems)
        .filteredOn(p -> p.field().equals("schedule.zone"))
        .singleElement()
        .satisfies(p -> assertThat(p.value()).isEqualTo("Mars/Olympus"));
  }

  @Test
  void the_exception_message_names_task_field_and_value() {
    assertThatThrownBy(() -> valid().zone("Nowhere/City").build())
        .isInstanceOf(InvalidTaskException.class)
        .hasMessageContaining("daily-digest")
        .hasMessageContaining("schedule.zone")
        .hasMessageContaining("Nowhere/City");
  }

  @Test
  void durations_outside_their_range_are_refused() {
    assertThat(problemsOf(valid().timeout("0s")))
        .extracting(Problem::field)
        .containsExactly("timeout");
    assertThat(problemsOf(valid().timeout("2d")))
        .extracting(Problem::field)
        .containsExactly("timeout");
    assertThat(problemsOf(valid().catchup("30d")))
        .extracting(Problem::field)
        .containsExactly("catchup");
    assertThat(valid().catchup("0s").build().catchup()).isZero();
  }

  @Test
  void params_must_be_a_small_json_object() {
    assertThat(problemsOf(valid().paramsJson("[1,2]")))
        .extracting(Problem::field)
        .containsExactly("params");
    assertThat(problemsOf(valid().paramsJson("{not json")))
        .extracting(Problem::field)
        .containsExactly("params");
    String huge = "{\"blob\":\"" + "x".repeat(10 * 1024 * 1024) + "\"}";
    List<Problem> problems = problemsOf(valid().paramsJson(huge));
    assertThat(problems)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.field()).isEqualTo("params");
              assertThat(p.toString()).hasSizeLessThan(300);
            });
    assertThat(valid().paramsJson("{\"channel\":\"#news\"}").build().paramsJson())
        .isEqualTo("{\"channel\":\"#news\"}");
  }

  @Test
  void an_invalid_cron_is_refused_with_its_text() {
    assertThat(problemsOf(valid().cron("61 * * * * ?")))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.field()).isEqualTo("schedule.cron");
              assertThat(p.value()).isEqualTo("61 * * * * ?");
            });
  }

  @Test
  void a_bad_retry_spec_is_reported_with_the_other_problems() {
    List<Problem> problems =
        problemsOf(valid().handler("").retrySpec(Map.of("policy", "SOMETIMES")));
    assertThat(problems).extracting(Problem::field).contains("handler", "retry.policy");
  }

  @Test
  void paused_and_version_are_copied_by_withers() {
    TaskDefinition d = valid().build();
    assertThat(d.withPaused(true).paused()).isTrue();
    assertThat(d.withVersion(7).version()).isEqualTo(7);
    assertThat(d.withPaused(true).withVersion(7).id()).isEqualTo(d.id());
  }
}
