package dev.carillon.trigger.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Decision;
import dev.carillon.testsupport.Instances;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TickPlannerTest {
  private static final Instant DAY1_0800 = Instant.parse("2026-11-28T08:00:00Z");
  private static final String ACTOR = "trigger:test";
  private final TickPlanner planner = new TickPlanner(PlannerSettings.defaults(ACTOR));

  /** A cursor of a UTC task, as the planner writes it. */
  private static TriggerCursor utc(Instant evaluatedUntil) {
    return new TriggerCursor(evaluatedUntil, ZoneOffset.UTC);
  }

  @Test
  void each_new_cursor_records_the_offset_its_zone_has_there() {
    TaskDefinition newYork =
        TaskDefinition.builder("ny")
            .handler("noop")
            .cron("0 0 8 * * ?", ZoneId.of("America/New_York"), WindowKind.DAILY)
            .build();

    TickPlan started = planner.plan(List.of(newYork), Map.of(), Map.of(), DAY1_0800);
    TickPlan moved =
        planner.plan(
            List.of(newYork),
            Map.of("ny", Instant.parse("2026-03-08T06:00:00Z")),
            Map.of(),
            Instant.parse("2026-03-08T08:00:00Z"));

    assertThat(started.cursors())
        .containsExactly(Map.entry("ny", new TriggerCursor(DAY1_0800, ZoneOffset.ofHours(-5))));
    // The spring-forward change at 07:00Z lies between the old cursor and the new one.
    assertThat(moved.cursors())
        .containsExactly(
            Map.entry(
                "ny",
                new TriggerCursor(Instant.parse("2026-03-08T08:00:00Z"), ZoneOffset.ofHours(-4))));
  }

  @Test
  void a_task_seen_for_the_first_time_starts_its_cursor_at_now_without_back_filling() {
    TaskDefinition daily = Tasks.daily("digest").build();

    TickPlan plan = planner.plan(List.of(daily), Map.of(), Map.of(), DAY1_0800);

    assertThat(plan.rows()).isEmpty();
    assertThat(plan.decisions()).isEmpty();
    assertThat(plan.cursors()).containsExactly(Map.entry("digest", utc(DAY1_0800)));
    assertThat(plan.counts().tasksStarted()).isEqualTo(1);
  }

  @Test
  void fire_times_in_cursor_exclusive_to_now_inclusive_create_windows() {
    TaskDefinition daily = Tasks.daily("digest").build();

    TickPlan atFire =
        planner.plan(
            List.of(daily), Map.of("digest", DAY1_0800.minusSeconds(1)), Map.of(), DAY1_0800);
    TickPlan cursorOnFire =
        planner.plan(
            List.of(daily), Map.of("digest", DAY1_0800), Map.of(), DAY1_0800.plusSeconds(1));

    assertThat(atFire.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.window().key()).isEqualTo("2026-11-28");
              assertThat(r.scheduledAt()).isEqualTo(DAY1_0800);
              assertThat(r.status()).isEqualTo(InstanceStatus.PENDING);
              assertThat(r.origin()).isEqualTo(Origin.SCHEDULE);
            });
    assertThat(atFire.cursors()).containsEntry("digest", utc(DAY1_0800));
    assertThat(cursorOnFire.rows()).isEmpty();
    assertThat(cursorOnFire.cursors()).containsEntry("digest", utc(DAY1_0800.plusSeconds(1)));
  }

  @Test
  void a_cursor_at_or_after_now_stays_put_when_the_clock_jumps_back() {
    TaskDefinition daily = Tasks.daily("digest").build();
    Instant ahead = DAY1_0800.plusSeconds(60);

    TickPlan plan = planner.plan(List.of(daily), Map.of("digest", ahead), Map.of(), DAY1_0800);

    assertThat(plan.rows()).isEmpty();
    assertThat(plan.cursors()).isEmpty();
  }

  @Test
  void several_fire_times_of_one_window_create_it_once() {
    // Every 10 s with a DAILY window: 6 fire times in a minute, one window.
    TaskDefinition t =
        TaskDefinition.builder("poll")
            .handler("noop")
            .cron("0/10 * * * * ?", ZoneId.of("UTC"), WindowKind.DAILY)
            .build();

    TickPlan plan =
        planner.plan(List.of(t), Map.of("poll", DAY1_0800), Map.of(), DAY1_0800.plusSeconds(60));

    assertThat(plan.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.window().key()).isEqualTo("2026-11-28");
              assertThat(r.scheduledAt()).isEqualTo(DAY1_0800.plusSeconds(10));
            });
    assertThat(plan.counts().fireTimes()).isEqualTo(6);
  }

  @Test
  void the_current_window_with_a_live_instance_is_a_window_exists_decision() {
    TaskDefinition t =
        TaskDefinition.builder("poll")
            .handler("noop")
            .cron("0/10 * * * * ?", ZoneId.of("UTC"), WindowKind.DAILY)
            .build();
    Instance running = instance(42, "poll", "2026-11-28", InstanceStatus.RUNNING);

    TickPlan plan =
        planner.plan(
            List.of(t),
            Map.of("poll", DAY1_0800),
            Map.of("poll", List.of(running)),
            DAY1_0800.plusSeconds(10));

    assertThat(plan.rows()).isEmpty();
    assertThat(plan.decisions())
        .containsExactly(
            new Decision("poll", "2026-11-28", 42L, ACTOR, "window exists, status RUNNING"));
    assertThat(plan.cursors()).containsEntry("poll", utc(DAY1_0800.plusSeconds(10)));
  }

  @Test
  void overlap_skip_records_the_new_window_skipped_naming_the_blocking_instance() {
    TaskDefinition daily = Tasks.daily("digest").build();
    Instance running = instance(42, "digest", "2026-11-28", InstanceStatus.RUNNING);
    Instant day2 = DAY1_0800.plus(Duration.ofDays(1));

    TickPlan plan =
        planner.plan(
            List.of(daily),
            Map.of("digest", day2.minusSeconds(1)),
            Map.of("digest", List.of(running)),
            day2);

    assertThat(plan.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.window().key()).isEqualTo("2026-11-29");
              assertThat(r.status()).isEqualTo(InstanceStatus.SKIPPED);
              assertThat(r.reason())
                  .isEqualTo("previous window 2026-11-28 (instance 42) still RUNNING");
            });
    assertThat(plan.counts().skippedOverlap()).isEqualTo(1);
    assertThat(plan.summaries())
        .singleElement()
        .satisfies(s -> assertThat(s.kind()).isEqualTo(SkipReason.OVERLAP.name()));
  }

  @Test
  void every_live_status_blocks_under_skip() {
    TaskDefinition daily = Tasks.daily("digest").build();
    Instant day2 = DAY1_0800.plus(Duration.ofDays(1));
    for (InstanceStatus s : InstanceStatus.LIVE) {
      TickPlan plan =
          planner.plan(
              List.of(daily),
              Map.of("digest", day2.minusSeconds(1)),
              Map.of("digest", List.of(instance(7, "digest", "2026-11-28", s))),
              day2);
      assertThat(plan.rows())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.status()).isEqualTo(InstanceStatus.SKIPPED);
                assertThat(r.reason()).endsWith("still " + s);
              });
    }
  }

  @Test
  void overlap_allow_runs_the_new_window_beside_the_live_one() {
    TaskDefinition daily = Tasks.daily("digest").overlap(OverlapPolicy.ALLOW).build();
    Instance running = instance(42, "digest", "2026-11-28", InstanceStatus.RUNNING);
    Instant day2 = DAY1_0800.plus(Duration.ofDays(1));

    TickPlan plan =
        planner.plan(
            List.of(daily),
            Map.of("digest", day2.minusSeconds(1)),
            Map.of("digest", List.of(running)),
            day2);

    assertThat(plan.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.window().key()).isEqualTo("2026-11-29");
              assertThat(r.status()).isEqualTo(InstanceStatus.PENDING);
            });
  }

  @Test
  void a_paused_task_consumes_its_fire_times_as_decisions_and_creates_nothing() {
    TaskDefinition paused = Tasks.daily("digest").paused(true).build();

    TickPlan plan =
        planner.plan(
            List.of(paused), Map.of("digest", DAY1_0800.minusSeconds(1)), Map.of(), DAY1_0800);

    assertThat(plan.rows()).isEmpty();
    assertThat(plan.decisions())
        .containsExactly(new Decision("digest", "2026-11-28", null, ACTOR, "task paused"));
    assertThat(plan.cursors()).containsEntry("digest", utc(DAY1_0800));
    assertThat(plan.counts().paused()).isEqualTo(1);
  }

  @Test
  void after_downtime_windows_inside_catchup_run_oldest_first_and_older_ones_are_skipped() {
    // Every 10 minutes, each fire its own window, ALLOW so that every catch-up window runs.
    TaskDefinition t =
        TaskDefinition.builder("tenmin")
            .handler("noop")
            .cron("0 0/10 * * * ?", Tasks.UTC, WindowKind.EVERY_FIRE)
            .overlap(OverlapPolicy.ALLOW)
            .build();
    Instant cursor = Instant.parse("2026-11-28T00:00:30Z");
    Instant now = Instant.parse("2026-11-28T05:00:05Z");

    TickPlan plan = planner.plan(List.of(t), Map.of("tenmin", cursor), Map.of(), now);

    List<NewInstance> skipped =
        plan.rows().stream().filter(r -> r.status() == InstanceStatus.SKIPPED).toList();
    List<NewInstance> run =
        plan.rows().stream().filter(r -> r.status() == InstanceStatus.PENDING).toList();
    assertThat(skipped).hasSize(24); // 00:10 .. 04:00
    assertThat(skipped)
        .allSatisfy(
            r -> {
              assertThat(r.reason()).startsWith("outside catch-up window");
              assertThat(r.origin()).isEqualTo(Origin.CATCHUP);
            });
    assertThat(skipped.get(23).scheduledAt()).isEqualTo(Instant.parse("2026-11-28T04:00:00Z"));
    assertThat(run)
        .extracting(NewInstance::scheduledAt)
        .containsExactly(
            Instant.parse("2026-11-28T04:10:00Z"),
            Instant.parse("2026-11-28T04:20:00Z"),
            Instant.parse("2026-11-28T04:30:00Z"),
            Instant.parse("2026-11-28T04:40:00Z"),
            Instant.parse("2026-11-28T04:50:00Z"),
            Instant.parse("2026-11-28T05:00:00Z"));
    assertThat(run)
        .extracting(NewInstance::origin)
        .containsExactly(
            Origin.CATCHUP,
            Origin.CATCHUP,
            Origin.CATCHUP,
            Origin.CATCHUP,
            Origin.CATCHUP,
            Origin.SCHEDULE);
    assertThat(plan.counts().skippedCatchup()).isEqualTo(24);
    assertThat(plan.counts().catchup()).isEqualTo(5);
    assertThat(plan.summaries())
        .filteredOn(s -> s.kind().equals(SkipReason.OUTSIDE_CATCHUP.name()))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.count()).isEqualTo(24);
              assertThat(s.firstWindow()).isEqualTo("2026-11-28T00:10:00Z");
            });
  }

  @Test
  void under_skip_only_the_oldest_catchup_window_runs_and_the_rest_name_it() {
    TaskDefinition t =
        TaskDefinition.builder("tenmin")
            .handler("noop")
            .cron("0 0/10 * * * ?", Tasks.UTC, WindowKind.EVERY_FIRE)
            .build();
    Instant cursor = Instant.parse("2026-11-28T04:00:30Z");
    Instant now = Instant.parse("2026-11-28T04:30:30Z");

    TickPlan plan = planner.plan(List.of(t), Map.of("tenmin", cursor), Map.of(), now);

    assertThat(plan.rows())
        .extracting(NewInstance::status)
        .containsExactly(InstanceStatus.PENDING, InstanceStatus.SKIPPED, InstanceStatus.SKIPPED);
    assertThat(plan.rows().get(1).reason())
        .isEqualTo("previous window 2026-11-28T04:10:00Z (planned in the same tick) still PENDING");
  }

  @Test
  void a_catchup_window_of_zero_still_runs_on_time_fires() {
    TaskDefinition t = Tasks.daily("digest").catchup(Duration.ZERO).build();

    TickPlan plan =
        planner.plan(
            List.of(t),
            Map.of("digest", DAY1_0800.minusSeconds(5)),
            Map.of(),
            DAY1_0800.plusSeconds(2));

    assertThat(plan.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.status()).isEqualTo(InstanceStatus.PENDING);
              assertThat(r.origin()).isEqualTo(Origin.SCHEDULE);
            });
  }

  @Test
  void at_most_the_cap_of_fire_times_per_task_per_tick_and_the_cursor_stops_at_the_last_one() {
    TaskDefinition t = Tasks.everySeconds("sec", 1).overlap(OverlapPolicy.ALLOW).build();
    TickPlanner capped = new TickPlanner(new PlannerSettings(100, Duration.ofSeconds(10), ACTOR));
    Instant cursor = DAY1_0800;

    TickPlan plan =
        capped.plan(List.of(t), Map.of("sec", cursor), Map.of(), cursor.plusSeconds(250));

    assertThat(plan.rows()).hasSize(100);
    assertThat(plan.rows().get(0).scheduledAt()).isEqualTo(cursor.plusSeconds(1));
    assertThat(plan.cursors()).containsEntry("sec", utc(cursor.plusSeconds(100)));
    assertThat(plan.counts().truncatedTasks()).isEqualTo(1);
  }

  @Test
  void tasks_are_planned_in_id_order_and_only_moved_cursors_are_returned() {
    TaskDefinition b = Tasks.daily("b").build();
    TaskDefinition a = Tasks.daily("a").build();
    TaskDefinition c = Tasks.daily("c").build();

    TickPlan plan =
        planner.plan(
            List.of(b, c, a),
            Map.of("a", DAY1_0800.minusSeconds(1), "b", DAY1_0800.minusSeconds(1), "c", DAY1_0800),
            Map.of(),
            DAY1_0800);

    assertThat(plan.rows()).extracting(NewInstance::taskId).containsExactly("a", "b");
    assertThat(plan.cursors().keySet()).containsExactly("a", "b");
  }

  @Test
  void dst_gap_and_overlap_days_fire_a_daily_task_once_at_the_documented_instant() {
    TaskDefinition spring =
        TaskDefinition.builder("spring")
            .handler("noop")
            .cron("0 30 2 * * ?", ZoneId.of("America/New_York"), WindowKind.DAILY)
            .build();
    TaskDefinition fall =
        TaskDefinition.builder("fall")
            .handler("noop")
            .cron("0 30 1 * * ?", ZoneId.of("America/New_York"), WindowKind.DAILY)
            .build();
    TickPlanner wide = new TickPlanner(new PlannerSettings(100, Duration.ofDays(2), ACTOR));

    TickPlan s =
        wide.plan(
            List.of(spring),
            Map.of("spring", Instant.parse("2026-03-08T00:00:00Z")),
            Map.of(),
            Instant.parse("2026-03-09T00:00:00Z"));
    TickPlan f =
        wide.plan(
            List.of(fall),
            Map.of("fall", Instant.parse("2026-11-01T00:00:00Z")),
            Map.of(),
            Instant.parse("2026-11-02T00:00:00Z"));

    assertThat(s.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.window().key()).isEqualTo("2026-03-08");
              assertThat(r.scheduledAt()).isEqualTo(Instant.parse("2026-03-08T07:00:00Z"));
            });
    assertThat(f.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.window().key()).isEqualTo("2026-11-01");
              assertThat(r.scheduledAt()).isEqualTo(Instant.parse("2026-11-01T05:30:00Z"));
            });
  }

  // ---------------------------------------------------------------- created ahead (horizon)

  private static final Duration AHEAD = Duration.ofMillis(200);

  @Test
  void fire_times_up_to_the_horizon_are_created_pending_scheduled_at_their_fire_time() {
    TaskDefinition poll = Tasks.everySeconds("poll", 10).overlap(OverlapPolicy.ALLOW).build();
    Instant now = DAY1_0800.minus(AHEAD);

    TickPlan plan =
        planner.plan(List.of(poll), Map.of("poll", now.minusSeconds(1)), Map.of(), now, DAY1_0800);

    assertThat(plan.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.status()).isEqualTo(InstanceStatus.PENDING);
              assertThat(r.scheduledAt()).isEqualTo(DAY1_0800);
              assertThat(r.origin()).isEqualTo(Origin.SCHEDULE);
            });
    assertThat(plan.cursors()).containsExactly(Map.entry("poll", utc(DAY1_0800)));
  }

  @Test
  void a_horizon_equal_to_now_plans_exactly_what_the_tick_without_one_does() {
    TaskDefinition poll = Tasks.everySeconds("poll", 10).build();
    Map<String, Instant> cursors = Map.of("poll", DAY1_0800.minusSeconds(30));

    TickPlan without = planner.plan(List.of(poll), cursors, Map.of(), DAY1_0800);
    TickPlan with = planner.plan(List.of(poll), cursors, Map.of(), DAY1_0800, DAY1_0800);

    assertThat(with.rows()).isEqualTo(without.rows());
    assertThat(with.cursors()).isEqualTo(without.cursors());
    assertThat(with.counts()).isEqualTo(without.counts());
  }

  @Test
  void a_paused_task_is_not_decided_ahead_its_cursor_stops_at_now() {
    TaskDefinition poll = Tasks.everySeconds("poll", 10).paused(true).build();
    Instant now = DAY1_0800.minus(AHEAD);

    TickPlan plan =
        planner.plan(List.of(poll), Map.of("poll", now.minusSeconds(1)), Map.of(), now, DAY1_0800);

    assertThat(plan.rows()).isEmpty();
    assertThat(plan.decisions()).as("no 'task paused' before the fire time").isEmpty();
    assertThat(plan.cursors()).containsExactly(Map.entry("poll", utc(now)));
  }

  @Test
  void under_skip_a_live_instance_keeps_the_next_fire_for_the_tick_at_its_time() {
    TaskDefinition poll = Tasks.everySeconds("poll", 10).build();
    Instance running = instance(42, "poll", "2026-11-28", InstanceStatus.RUNNING);
    Instant now = DAY1_0800.minus(AHEAD);

    TickPlan plan =
        planner.plan(
            List.of(poll),
            Map.of("poll", now.minusSeconds(1)),
            Map.of("poll", List.of(running)),
            now,
            DAY1_0800);

    assertThat(plan.rows()).as("not recorded SKIPPED ahead: the run may end in time").isEmpty();
    assertThat(plan.cursors()).containsExactly(Map.entry("poll", utc(now)));
  }

  @Test
  void under_skip_a_window_planned_in_the_same_tick_stops_the_planning_ahead_after_it() {
    // A catch-up fire at 07:59:50 is planned PENDING; whether it still runs at 08:00:00 is known
    // only then, so 08:00:00 is neither created nor skipped now, and the cursor stays before it.
    TaskDefinition poll = Tasks.everySeconds("poll", 10).build();
    Instant now = DAY1_0800.minus(AHEAD);

    TickPlan plan =
        planner.plan(
            List.of(poll), Map.of("poll", DAY1_0800.minusSeconds(15)), Map.of(), now, DAY1_0800);

    assertThat(plan.rows())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.scheduledAt()).isEqualTo(DAY1_0800.minusSeconds(10));
              assertThat(r.status()).isEqualTo(InstanceStatus.PENDING);
            });
    assertThat(plan.cursors()).containsExactly(Map.entry("poll", utc(now)));
    assertThat(plan.counts().fireTimes()).as("the fire left for later is not counted").isEqualTo(1);
  }

  @Test
  void a_horizon_before_now_is_refused_naming_both() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> planner.plan(List.of(), Map.of(), Map.of(), DAY1_0800, DAY1_0800.minusMillis(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("horizon 2026-11-28T07:59:59.999Z is before now 2026-11-28T08:00:00Z");
  }

  private static Instance instance(long id, String taskId, String day, InstanceStatus status) {
    Instant start = Instant.parse(day + "T00:00:00Z");
    return Instances.of(id, taskId, day, start, start.plus(Duration.ofDays(1)))
        .scheduledAt(start.plus(Duration.ofHours(8)))
        .status(status, 1)
        .build();
  }
}
