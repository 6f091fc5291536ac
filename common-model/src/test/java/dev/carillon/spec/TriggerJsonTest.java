package dev.carillon.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.schedule.CronSchedule;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.ConditionTrigger;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.DependencyTrigger;
import dev.carillon.model.task.EventKey;
import dev.carillon.model.task.EventTrigger;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.Problem;
import dev.carillon.model.task.Trigger;
import dev.carillon.model.task.TriggerKind;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The store's {@code spec} column: the non-cron triggers as JSON, in the shape of a task spec. */
class TriggerJsonTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  // The texts are those rows already hold: an apply of an unchanged definition must find its row
  // unchanged.
  static Stream<Arguments> triggers() {
    return Stream.of(
        Arguments.of(
            new AtTrigger(Instant.parse("2026-12-24T08:00:00Z"), WindowKind.EVERY_FIRE, BERLIN),
            "{\"at\":\"2026-12-24T08:00:00Z\"}"),
        Arguments.of(
            new DependencyTrigger(List.of("a", "b"), WindowKind.HOURLY, ZoneOffset.UTC),
            "{\"after\":[\"a\",\"b\"]}"),
        Arguments.of(
            new EventTrigger(
                "orders",
                EventKey.parse("event.key", "json:orderId"),
                Duration.ofSeconds(30),
                100,
                WindowKind.DAILY,
                ZoneOffset.UTC),
            "{\"event\":{\"topic\":\"orders\",\"key\":\"json:orderId\",\"coalesce\":\"30s\","
                + "\"ratePerSecond\":100.0}}"),
        Arguments.of(
            new EventTrigger(
                "orders",
                EventKey.parse("event.key", "bucket:5m"),
                Duration.ZERO,
                0,
                WindowKind.DAILY,
                BERLIN),
            "{\"event\":{\"topic\":\"orders\",\"key\":\"bucket:5m\"}}"),
        Arguments.of(
            new ConditionTrigger(
                "file-ready",
                Duration.ofMinutes(5),
                2,
                "{\"path\":\"/tmp/x\",\"n\":[1,2.5,true,null]}",
                WindowKind.HOURLY,
                BERLIN),
            "{\"condition\":{\"type\":\"file-ready\",\"every\":\"5m\",\"debounce\":2,"
                + "\"params\":{\"path\":\"/tmp/x\",\"n\":[1,2.5,true,null]}}}"));
  }

  @ParameterizedTest
  @MethodSource("triggers")
  void each_non_cron_trigger_including_a_one_shot_is_written_as_its_spec_and_read_back_equal(
      Trigger trigger, String json) {
    assertThat(TriggerJson.toJson(trigger)).isEqualTo(json);
    assertThat(
            TriggerJson.fromJson(
                "t", trigger.kind(), TriggerJson.toJson(trigger), trigger.window(), trigger.zone()))
        .isEqualTo(trigger);
  }

  @Test
  void a_cron_trigger_has_no_spec() {
    assertThat(
            TriggerJson.toJson(
                new CronTrigger(CronSchedule.parse("0 0 8 * * ?", BERLIN), WindowKind.DAILY)))
        .isNull();
  }

  @Test
  void a_spec_edited_into_something_invalid_names_the_fields_as_a_task_spec_does() {
    assertThatThrownBy(
            () ->
                TriggerJson.fromJson(
                    "t",
                    TriggerKind.EVENT,
                    "{\"event\":{\"topic\":\"bad topic!\"},\"after\":[\"x\"]}",
                    WindowKind.DAILY,
                    ZoneOffset.UTC))
        .isInstanceOfSatisfying(
            InvalidTaskException.class,
            e -> {
              assertThat(e.taskId()).isEqualTo("t");
              assertThat(e.problems())
                  .extracting(Problem::field)
                  .containsExactlyInAnyOrder("after", "event.topic");
            });
    assertThatThrownBy(
            () ->
                TriggerJson.fromJson(
                    "t", TriggerKind.DEPENDENCY, "not json", WindowKind.DAILY, ZoneOffset.UTC))
        .isInstanceOf(InvalidTaskException.class)
        .hasMessageContaining("spec='not json'");
  }
}
