package dev.carillon.trigger.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.testsupport.Instances;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The planner's rules for a one-shot ({@code at}) task, with fixed instants: it fires exactly once
 * however late the trigger first sees it (within the catch-up window), is recorded SKIPPED beyond
 * it, and a cursor at or past its instant never plans it again.
 */
class OneShotPlanTest {
  private static final Instant AT = Instant.parse("2026-12-24T08:00:00Z");
  private final TickPlanner planner = new TickPlanner(PlannerSettings.defaults("trigger:test"));

  private static TaskDefinition once(String id, Duration catchup) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .trigger(new AtTrigger(AT, WindowKind.EVERY_FIRE, ZoneId.of("Europe/Berlin")))
        .catchup(catchup)
        .build();
  }

  private TickPlan plan(TaskDefinition task, Instant cursor, Instant now) {
    Map<String, Instant> cursors = new HashMap<>();
    if (cursor != null) {
      cursors.put(task.id(), cursor);
    }
    return planner.plan(List.of(task), cursors, Map.of(), now);
  }

  @Test
  void seen_before_its_instant_it_starts_at_now_and_fires_on_time_when_the_instant_comes() {
    TaskDefinition t = once("remind", Duration.ofHours(1));

    TickPlan first = plan(t, null, AT.minusSeconds(30));
    TickPlan due = plan(t, AT.minusSeconds(30), AT);

    assertThat(first.rows()).isEmpty();
    assertThat(first.cursors())
        .containsExactly(Map.entry("remind", cursor(AT.minusSeconds(30), "Europe/Berlin")));
    assertThat(due.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.window().key()).isEqualTo("2026-12-24T08:00:00Z");
              assertThat(r.scheduledAt()).isEqualTo(AT);
              assertThat(r.status()).isEqualTo(InstanceStatus.PENDING);
              assertThat(r.origin()).isEqualTo(Origin.SCHEDULE);
            });
    assertThat(due.cursors()).containsEntry("remind", cursor(AT, "Europe/Berlin"));
  }

  @Test
  void first_seen_half_a_second_after_its_instant_it_still_fires_on_time_in_that_tick() {
    // The case a cron cursor starting at "now" misses: applied just before the instant, first seen
    // by a tick just after it.
    TickPlan plan = plan(once("remind", Duration.ofHours(1)), null, AT.plusMillis(500));

    assertThat(plan.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.scheduledAt()).isEqualTo(AT);
              assertThat(r.origin()).isEqualTo(Origin.SCHEDULE);
              assertThat(r.status()).isEqualTo(InstanceStatus.PENDING);
            });
    assertThat(plan.counts().tasksStarted()).isEqualTo(1);
    assertThat(plan.counts().tasksEvaluated()).isEqualTo(1);
  }

  @Test
  void applied_after_its_instant_but_within_the_catch_up_window_it_fires_once_as_catch_up() {
    TaskDefinition t = once("remind", Duration.ofHours(1));
    Instant now = AT.plus(Duration.ofMinutes(40));

    TickPlan first = plan(t, null, now);
    Instant cursor = first.cursors().get("remind").evaluatedUntil();
    TickPlan next = plan(t, cursor, now.plusSeconds(1));
    TickPlan muchLater = plan(t, cursor, now.plus(Duration.ofDays(30)));

    assertThat(first.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.origin()).isEqualTo(Origin.CATCHUP);
              assertThat(r.status()).isEqualTo(InstanceStatus.PENDING);
              assertThat(r.scheduledAt()).isEqualTo(AT);
            });
    assertThat(first.counts().catchup()).isEqualTo(1);
    assertThat(cursor).isEqualTo(now);
    assertThat(next.rows()).isEmpty();
    assertThat(muchLater.rows()).isEmpty();
    assertThat(muchLater.decisions()).isEmpty();
  }

  @Test
  void seen_only_after_its_catch_up_window_it_is_recorded_skipped_with_the_reason() {
    TickPlan plan = plan(once("remind", Duration.ofHours(1)), null, AT.plus(Duration.ofHours(3)));

    assertThat(plan.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.status()).isEqualTo(InstanceStatus.SKIPPED);
              assertThat(r.origin()).isEqualTo(Origin.CATCHUP);
              assertThat(r.reason()).isEqualTo("outside catch-up window (1h)");
              assertThat(r.window().key()).isEqualTo("2026-12-24T08:00:00Z");
            });
    assertThat(plan.counts().skippedCatchup()).isEqualTo(1);
  }

  @Test
  void a_cursor_at_or_past_its_instant_plans_nothing_as_after_a_restart_or_a_failover() {
    TaskDefinition t = once("remind", Duration.ofHours(1));

    TickPlan onIt = plan(t, AT, AT.plusSeconds(5));
    TickPlan past = plan(t, AT.plusSeconds(2), AT.plus(Duration.ofMinutes(10)));

    assertThat(onIt.rows()).isEmpty();
    assertThat(onIt.decisions()).isEmpty();
    assertThat(past.rows()).isEmpty();
    assertThat(past.decisions()).isEmpty();
  }

  @Test
  void a_lost_cursor_plans_the_same_window_again_which_the_unique_index_and_overlap_rule_stop() {
    // Evaluated again from scratch (a cursor row lost, a task whose instant was re-applied): the
    // planner names the same window key, so the insert is a no-op; a live instance of that window
    // is even named as the decision.
    TaskDefinition t = once("remind", Duration.ofHours(1));
    NewInstance fired = plan(t, null, AT).rows().get(0);
    Instance live = running(7L, fired);

    TickPlan again = plan(t, null, AT.plus(Duration.ofMinutes(5)));
    TickPlan withLive =
        planner.plan(
            List.of(t), Map.of(), Map.of("remind", List.of(live)), AT.plus(Duration.ofMinutes(5)));

    assertThat(again.rows())
        .extracting(r -> r.window().key())
        .containsExactly(fired.window().key());
    assertThat(withLive.rows()).isEmpty();
    assertThat(withLive.decisions())
        .singleElement()
        .satisfies(d -> assertThat(d.reason()).isEqualTo("window exists, status RUNNING"));
  }

  @Test
  void a_paused_one_shot_records_its_instant_as_a_task_paused_decision_and_moves_on() {
    TaskDefinition t = once("remind", Duration.ofHours(1)).withPaused(true);

    TickPlan plan = plan(t, AT.minusSeconds(1), AT);

    assertThat(plan.rows()).isEmpty();
    assertThat(plan.decisions())
        .singleElement()
        .satisfies(d -> assertThat(d.reason()).isEqualTo("task paused"));
    assertThat(plan.cursors()).containsEntry("remind", cursor(AT, "Europe/Berlin"));
  }

  private static TriggerCursor cursor(Instant at, String zone) {
    return TriggerCursor.at(at, ZoneId.of(zone));
  }

  /** A RUNNING instance of {@code row}'s window, as the database would hold it. */
  private static Instance running(long id, NewInstance row) {
    return Instances.of(
            id, row.taskId(), row.window().key(), row.window().start(), row.window().end())
        .scheduledAt(row.scheduledAt())
        .status(InstanceStatus.RUNNING, 1)
        .workerId("w1")
        .origin(row.origin())
        .createdAt(row.scheduledAt())
        .build();
  }
}
