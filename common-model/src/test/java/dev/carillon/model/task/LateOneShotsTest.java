package dev.carillon.model.task;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.schedule.WindowKind;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The apply rule for late one-shots: refused when the instant is older than the catch-up window
 * (the boundary itself still runs), unless that instant is already stored.
 */
class LateOneShotsTest {
  private static final Instant AT = Instant.parse("2026-12-24T08:00:00Z");

  private static TaskDefinition once(String id, Instant at, Duration catchup) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .trigger(new AtTrigger(at, WindowKind.EVERY_FIRE, ZoneOffset.UTC))
        .catchup(catchup)
        .build();
  }

  @Test
  void a_one_shot_exactly_at_the_end_of_its_catch_up_window_is_accepted_one_second_later_refused() {
    TaskDefinition t = once("remind", AT, Duration.ofHours(1));

    assertThat(LateOneShots.of(List.of(t), Map.of(), AT.plus(Duration.ofHours(1)))).isEmpty();
    assertThat(LateOneShots.of(List.of(t), Map.of(), AT.plusSeconds(3601)))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.taskId()).isEqualTo("remind");
              assertThat(p.problem().field()).isEqualTo("at");
              assertThat(p.problem().value()).isEqualTo("2026-12-24T08:00:00Z");
              assertThat(p.toString())
                  .isEqualTo(
                      "task 'remind': at='2026-12-24T08:00:00Z': is 1h1s before now"
                          + " (2026-12-24T09:00:01Z), beyond the task's catch-up window (1h): it"
                          + " would never run; give a later instant (or a longer catchup)");
            });
  }

  @Test
  void the_same_late_instant_already_stored_is_not_checked_again_but_a_moved_one_is() {
    Instant now = AT.plus(Duration.ofDays(2));
    TaskDefinition stored = once("remind", AT, Duration.ofHours(1));
    TaskDefinition sameWithNewParams =
        TaskDefinition.builder("remind")
            .handler("noop")
            .trigger(new AtTrigger(AT, WindowKind.EVERY_FIRE, ZoneOffset.UTC))
            .paramsJson("{\"step\":2}")
            .build();
    TaskDefinition moved = once("remind", AT.plusSeconds(60), Duration.ofHours(1));

    assertThat(LateOneShots.of(List.of(sameWithNewParams), Map.of("remind", stored), now))
        .isEmpty();
    assertThat(LateOneShots.of(List.of(moved), Map.of("remind", stored), now)).hasSize(1);
  }

  @Test
  void cron_tasks_and_future_one_shots_are_never_late() {
    TaskDefinition cron =
        TaskDefinition.builder("daily")
            .handler("noop")
            .cron("0 0 8 * * ?", ZoneOffset.UTC, WindowKind.DAILY)
            .build();
    TaskDefinition future = once("later", AT.plusSeconds(1), Duration.ZERO);

    assertThat(LateOneShots.of(List.of(cron, future), Map.of(), AT)).isEmpty();
  }
}
