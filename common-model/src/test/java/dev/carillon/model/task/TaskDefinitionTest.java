package dev.carillon.model.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.schedule.WindowKind;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The record's own rules, with typed values. Reading text (zones, durations, policies as written)
 * is the spec reader's, tested in {@code dev.carillon.spec.SpecReaderTest}.
 */
class TaskDefinitionTest {
  private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");
  private static final ZoneId UTC = ZoneId.of("UTC");

  private static TaskDefinition.Builder valid() {
    return TaskDefinition.builder("daily-digest")
        .handler("digest")
        .cron("0 0 8 * * ?", SHANGHAI, WindowKind.DAILY);
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
    assertThat(d.trigger().zone()).isEqualTo(SHANGHAI);
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
    assertThat(
            problemsOf(
                TaskDefinition.builder(id).handler("h").cron("0 0 8 * * ?", UTC, WindowKind.DAILY)))
        .anySatisfy(
            p -> {
              assertThat(p.field()).isEqualTo("id");
              assertThat(p.value()).isEqualTo(id);
            });
  }

  @Test
  void an_id_of_64_characters_is_accepted_and_65_is_refused() {
    String ok = "a".repeat(64);
    assertThat(
            TaskDefinition.builder(ok)
                .handler("h")
                .cron("0 0 8 * * ?", UTC, WindowKind.DAILY)
                .build()
                .id())
        .isEqualTo(ok);
    assertThat(
            problemsOf(
                TaskDefinition.builder(ok + "a")
                    .handler("h")
                    .cron("0 0 8 * * ?", UTC, WindowKind.DAILY)))
        .extracting(Problem::field)
        .containsExactly("id");
  }

  @Test
  void every_problem_is_reported_at_once() {
    List<Problem> problems =
        problemsOf(
            TaskDefinition.builder("BAD")
                .handler("")
                .trigger(null)
                .overlap(null)
                .catchup(Duration.ofDays(30))
                .timeout(Duration.ofMinutes(-5))
                .retry(null)
                .paramsJson("[1]")
                .version(-1));
    assertThat(problems)
        .extracting(Problem::field)
        .containsExactly(
            "id",
            "handler",
            "schedule",
            "overlap",
            "catchup",
            "timeout",
            "retry",
            "params",
            "version");
  }

  @Test
  void the_exception_message_names_task_field_and_value() {
    assertThatThrownBy(() -> valid().timeout(Duration.ofDays(2)).build())
        .isInstanceOf(InvalidTaskException.class)
        .hasMessageContaining("daily-digest")
        .hasMessageContaining("timeout")
        .hasMessageContaining("'2d'");
  }

  @Test
  void durations_outside_their_range_are_refused() {
    assertThat(problemsOf(valid().timeout(Duration.ZERO)))
        .extracting(Problem::field)
        .containsExactly("timeout");
    assertThat(problemsOf(valid().timeout(Duration.ofDays(2))))
        .extracting(Problem::field)
        .containsExactly("timeout");
    assertThat(problemsOf(valid().catchup(Duration.ofDays(30))))
        .extracting(Problem::field)
        .containsExactly("catchup");
    assertThat(valid().catchup(Duration.ZERO).build().catchup()).isZero();
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
    assertThatThrownBy(() -> valid().cron("61 * * * * ?", UTC, WindowKind.DAILY))
        .isInstanceOfSatisfying(
            InvalidTaskException.class,
            e -> {
              assertThat(e.taskId()).isEqualTo("daily-digest");
              assertThat(e.problems())
                  .singleElement()
                  .satisfies(
                      p -> {
                        assertThat(p.field()).isEqualTo("schedule.cron");
                        assertThat(p.value()).isEqualTo("61 * * * * ?");
                      });
            });
  }

  @Test
  void paused_and_version_are_copied_by_withers() {
    TaskDefinition d = valid().build();
    assertThat(d.withPaused(true).paused()).isTrue();
    assertThat(d.withVersion(7).version()).isEqualTo(7);
    assertThat(d.withPaused(true).withVersion(7).id()).isEqualTo(d.id());
  }

  @Test
  void the_kind_window_and_zone_come_from_the_one_trigger() {
    TaskDefinition cron = valid().build();
    assertThat(cron.triggerKind()).isEqualTo(TriggerKind.CRON);
    assertThat(cron.zone()).isEqualTo(SHANGHAI);
    assertThat(cron.upstreams()).isEmpty();

    TaskDefinition dependent =
        TaskDefinition.builder("publish")
            .handler("noop")
            .trigger(new DependencyTrigger(List.of("daily-digest"), WindowKind.HOURLY, UTC))
            .build();
    assertThat(dependent.triggerKind()).isEqualTo(TriggerKind.DEPENDENCY);
    assertThat(dependent.window()).isEqualTo(WindowKind.HOURLY);
    assertThat(dependent.upstreams()).containsExactly("daily-digest");
  }

  @Test
  void a_task_cannot_depend_on_itself() {
    assertThat(
            problemsOf(
                TaskDefinition.builder("t")
                    .handler("noop")
                    .trigger(new DependencyTrigger(List.of("u", "t"), WindowKind.DAILY, UTC))))
        .extracting(Problem::toString)
        .containsExactly("after[1]='t': a task cannot depend on itself");
  }

  @Test
  void each_trigger_names_every_broken_field_and_its_value() {
    assertThatThrownBy(
            () -> new DependencyTrigger(List.of("ok", "Not An Id", "ok"), WindowKind.DAILY, null))
        .isInstanceOf(InvalidTaskException.class)
        .hasMessageContaining("after[1]='Not An Id': must be a task id matching")
        .hasMessageContaining("after[2]='ok': is listed twice")
        .hasMessageContaining("schedule.zone=<missing>: is required");
    assertThatThrownBy(
            () ->
                new EventTrigger(
                    "bad topic!",
                    EventKey.parse("event.key", "key"),
                    Duration.ofDays(8),
                    -1,
                    WindowKind.DAILY,
                    UTC))
        .isInstanceOf(InvalidTaskException.class)
        .hasMessageContaining("event.topic='bad topic!'")
        .hasMessageContaining("event.coalesce='8d': must be between 0s and 7d")
        .hasMessageContaining("event.ratePerSecond='-1.0': must be a positive number");
    assertThatThrownBy(
            () -> new ConditionTrigger("x", Duration.ZERO, 0, "[]", WindowKind.HOURLY, UTC))
        .isInstanceOf(InvalidTaskException.class)
        .hasMessageContaining("condition.every='0s': must be between 1s and 24h")
        .hasMessageContaining("condition.debounce='0'")
        .hasMessageContaining("condition.params='[]': must be a JSON object");
  }

  @Test
  void the_retry_policy_defaults_to_none() {
    assertThat(valid().build().retry()).isEqualTo(RetryPolicy.none());
  }
}
