package dev.carillon.trigger.tick;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.FencedException;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

@ExtendWith(DevStackExtension.class)
class TriggerLoopTest {
  private static final Instant DAY1_0800 = Instant.parse("2026-11-28T08:00:00Z");

  private Database db;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeEach
  void openDatabase() {
    db = TestDatabase.fresh("trigger_loop");
    toClose.add(db);
  }

  @AfterEach
  void close() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  /**
   * The service's liveness asks how long ago the ticking thread finished a round. A loop that has
   * not ticked for a while (a standby, or a leader between terms) must not be overdue the moment it
   * starts: before, the time was counted from its construction or its last term's last round, so a
   * new leader whose first round waited on a stopped database reported itself not live.
   */
  @Test
  void a_loop_is_overdue_only_from_when_it_starts_ticking() {
    LoopFixture f = new LoopFixture(db, new SettableClock(DAY1_0800), "trigger:a");
    await("the loop to sit idle for more than a second")
        .atMost(Duration.ofSeconds(10))
        .until(() -> f.loop.sinceLastRound().compareTo(Duration.ofSeconds(1)) > 0);
    f.loop.startTicking();
    try {
      assertThat(f.loop.sinceLastRound())
          .as("since the last round, read right after ticking started")
          .isLessThan(Duration.ofSeconds(1));
    } finally {
      f.loop.stopTicking();
    }
  }

  // ---------------------------------------------------------------- failure story 1

  @Test
  void a_run_that_outlives_its_interval_is_not_run_twice_and_skip_names_the_blocker() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(1));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    // Fires twice a day into one DAILY window: the second fire must not create a second run.
    f.apply(Tasks.daily("digest", "0 0 8,20 * * ?"));
    f.loop.tickOnce(); // first sight: the cursor starts now

    clock.set(DAY1_0800);
    Instance first = single(f.loop.tickOnce().created());
    assertThat(first.windowKey()).isEqualTo("2026-11-28");
    assertThat(first.status()).isEqualTo(InstanceStatus.PENDING);
    assertThat(f.dispatched).extracting(Instance::id).containsExactly(first.id());
    assertThat(f.leases.claim(List.of(first.id()), "w1")).hasSize(1);

    clock.set(Instant.parse("2026-11-28T20:00:00Z"));
    TickResult evening = f.loop.tickOnce();
    assertThat(evening.created()).isEmpty();
    assertThat(f.instances.windowEvents("digest", "2026-11-28"))
        .filteredOn(e -> e.kind() == InstanceEvent.Kind.DECISION)
        .extracting(InstanceEvent::reason)
        .containsExactly("window exists, status RUNNING");

    clock.set(DAY1_0800.plus(Duration.ofDays(1)));
    Instance next = single(f.loop.tickOnce().created());
    assertThat(next.windowKey()).isEqualTo("2026-11-29");
    assertThat(next.status()).isEqualTo(InstanceStatus.SKIPPED);
    assertThat(next.failReason())
        .isEqualTo("previous window 2026-11-28 (instance " + first.id() + ") still RUNNING");
    assertThat(f.instances.countByStatus("digest"))
        .containsEntry(InstanceStatus.RUNNING, 1)
        .containsEntry(InstanceStatus.SKIPPED, 1)
        .hasSize(2);
    assertThat(f.counter("carillon.trigger.instances.skipped", "reason", "overlap")).isEqualTo(1);
  }

  @Test
  void under_allow_an_overlapping_window_runs_beside_the_live_one() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(1));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    f.apply(Tasks.daily("digest").overlap(OverlapPolicy.ALLOW));
    f.loop.tickOnce();
    clock.set(DAY1_0800);
    Instance first = single(f.loop.tickOnce().created());
    f.leases.claim(List.of(first.id()), "w1");

    clock.set(DAY1_0800.plus(Duration.ofDays(1)));
    Instance second = single(f.loop.tickOnce().created());

    assertThat(second.windowKey()).isEqualTo("2026-11-29");
    assertThat(second.status()).isEqualTo(InstanceStatus.PENDING);
    assertThat(f.instances.countByStatus("digest"))
        .containsEntry(InstanceStatus.RUNNING, 1)
        .containsEntry(InstanceStatus.PENDING, 1);
  }

  @Test
  void under_allow_a_second_fire_into_a_live_window_is_one_decision_naming_its_status() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(1));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    // ALLOW plans without reading the live instances: the insert finds the window instead.
    f.apply(Tasks.daily("digest", "0 0 8,20 * * ?").overlap(OverlapPolicy.ALLOW));
    f.loop.tickOnce();
    clock.set(DAY1_0800);
    Instance first = single(f.loop.tickOnce().created());
    f.leases.claim(List.of(first.id()), "w1");

    clock.set(Instant.parse("2026-11-28T20:00:00Z"));
    TickResult evening = f.loop.tickOnce();

    assertThat(evening.created()).isEmpty();
    assertThat(evening.existing())
        .extracting(d -> d.instanceId(), d -> d.reason())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(first.id(), "window exists, status RUNNING"));
    assertThat(f.instances.windowEvents("digest", "2026-11-28"))
        .filteredOn(e -> e.kind() == InstanceEvent.Kind.DECISION)
        .extracting(InstanceEvent::instanceId, InstanceEvent::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(first.id(), "window exists, status RUNNING"));
    assertThat(f.counter("carillon.trigger.decisions", "kind", "exists")).isEqualTo(1);
  }

  // ---------------------------------------------------------------- failure story 2

  @Test
  void restarting_mid_day_neither_drifts_the_next_fire_nor_repeats_a_triggered_window() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(1));
    LoopFixture before = new LoopFixture(db, clock, "trigger:a");
    before.apply(Tasks.daily("digest"));
    before.loop.tickOnce();
    clock.set(DAY1_0800);
    Instance first = single(before.loop.tickOnce().created());
    before.leases.claim(List.of(first.id()), "w1");
    before.leases.complete(
        new dev.carillon.store.Lease(first.id(), 1),
        dev.carillon.store.Outcome.success("ok", false, null),
        "w1");

    // Restart at 12:34:56 with a new loop on the same database.
    clock.set(Instant.parse("2026-11-28T12:34:56Z"));
    LoopFixture after = new LoopFixture(db, clock, "trigger:b");
    assertThat(after.loop.tickOnce().created()).isEmpty();
    clock.set(Instant.parse("2026-11-29T07:59:59Z"));
    assertThat(after.loop.tickOnce().created()).isEmpty();

    clock.set(DAY1_0800.plus(Duration.ofDays(1)));
    Instance next = single(after.loop.tickOnce().created());
    assertThat(next.windowKey()).isEqualTo("2026-11-29");
    assertThat(next.scheduledAt()).isEqualTo(Instant.parse("2026-11-29T08:00:00Z"));
    assertThat(next.origin()).isEqualTo(Origin.SCHEDULE);
    assertThat(next.status()).isEqualTo(InstanceStatus.PENDING);
    assertThat(after.instances.list("digest", null, null, 10)).hasSize(2);
  }

  @Test
  void a_restart_after_a_missed_fire_runs_it_at_its_own_scheduled_time() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(30));
    LoopFixture before = new LoopFixture(db, clock, "trigger:a");
    before.apply(Tasks.daily("digest"));
    before.loop.tickOnce();

    clock.set(DAY1_0800.plusSeconds(3 * 60)); // down for three minutes over the fire time
    LoopFixture after = new LoopFixture(db, clock, "trigger:b");
    Instance run = single(after.loop.tickOnce().created());

    assertThat(run.scheduledAt()).isEqualTo(DAY1_0800);
    assertThat(run.origin()).isEqualTo(Origin.CATCHUP);
    assertThat(after.loop.tickOnce().created()).isEmpty();
    // The old loop still has the fire in its cache; deposed by the new one, it writes nothing.
    assertThatThrownBy(before.loop::tickOnce).isInstanceOf(FencedException.class);
    assertThat(after.instances.list("digest", null, null, 10)).containsExactly(run);
  }

  // ---------------------------------------------------------------- catch-up

  @Test
  void downtime_longer_than_the_catchup_window_runs_the_recent_windows_and_skips_the_rest() {
    Instant start = Instant.parse("2026-11-28T00:00:30Z");
    SettableClock clock = new SettableClock(start);
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    // Every minute, each fire its own window, ALLOW so that every catch-up window runs.
    f.apply(
        TaskDefinition.builder("minutely")
            .handler("noop")
            .cron("0 * * * * ?", Tasks.UTC, WindowKind.EVERY_FIRE)
            .overlap(OverlapPolicy.ALLOW));
    ListAppender<ILoggingEvent> logs = capture(TriggerLoop.class);
    f.loop.tickOnce();

    clock.set(start.plus(Duration.ofHours(5)).minusSeconds(25)); // 300 missed fire times
    List<TickResult> ticks = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ticks.add(f.loop.tickOnce());
    }

    assertThat(ticks).extracting(t -> t.created().size()).containsExactly(100, 100, 100, 0);
    List<Instance> all = f.instances.list("minutely", null, null, 1000);
    assertThat(all).hasSize(300);
    List<Instance> skipped =
        all.stream().filter(i -> i.status() == InstanceStatus.SKIPPED).toList();
    List<Instance> run = all.stream().filter(i -> i.status() == InstanceStatus.PENDING).toList();
    assertThat(skipped).hasSize(240);
    assertThat(skipped)
        .allSatisfy(i -> assertThat(i.failReason()).startsWith("outside catch-up window"));
    assertThat(run).hasSize(60);
    // The last fire time (05:00:00) is 5 s old: on time. The 59 before it were missed.
    assertThat(run)
        .filteredOn(i -> i.origin() == Origin.CATCHUP)
        .hasSize(59)
        .noneMatch(i -> i.scheduledAt().equals(Instant.parse("2026-11-28T05:00:00Z")));
    assertThat(run.stream().map(Instance::scheduledAt).min(Comparator.naturalOrder()))
        .contains(Instant.parse("2026-11-28T04:01:00Z"));
    // Oldest first: ids grow with the fire time.
    assertThat(
            run.stream()
                .sorted(Comparator.comparing(Instance::id))
                .map(Instance::scheduledAt)
                .toList())
        .isSorted();
    assertThat(f.counter("carillon.trigger.instances.skipped", "reason", "catchup")).isEqualTo(240);
    assertThat(f.counter("carillon.trigger.instances.inserted", "origin", "CATCHUP")).isEqualTo(59);
    // One WARN per task per tick, with the count.
    assertThat(logs.list)
        .filteredOn(e -> e.getLevel() == Level.WARN)
        .extracting(ILoggingEvent::getFormattedMessage)
        .containsExactly(
            "Task minutely: 100 window(s) skipped, outside catch-up window; first"
                + " 2026-11-28T00:01:00Z: outside catch-up window (1h)",
            "Task minutely: 100 window(s) skipped, outside catch-up window; first"
                + " 2026-11-28T01:41:00Z: outside catch-up window (1h)",
            "Task minutely: 40 window(s) skipped, outside catch-up window; first"
                + " 2026-11-28T03:21:00Z: outside catch-up window (1h)");
  }

  // ---------------------------------------------------------------- DST

  @Test
  void on_dst_days_in_new_york_a_daily_task_fires_once_at_the_documented_instant() {
    Instant start = Instant.parse("2026-03-07T12:00:00Z");
    SettableClock clock = new SettableClock(start);
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    f.apply(
        TaskDefinition.builder("spring")
            .handler("noop")
            .cron("0 30 2 * * ?", ZoneId.of("America/New_York"), WindowKind.DAILY)
            .overlap(OverlapPolicy.ALLOW),
        TaskDefinition.builder("fall")
            .handler("noop")
            .cron("0 30 1 * * ?", ZoneId.of("America/New_York"), WindowKind.DAILY)
            .overlap(OverlapPolicy.ALLOW));
    f.loop.tickOnce();
    tickEvery(f, clock, Duration.ofMinutes(15), Instant.parse("2026-03-09T12:00:00Z"));
    clock.set(Instant.parse("2026-10-31T12:00:00Z"));
    f.loop.tickOnce();
    tickEvery(f, clock, Duration.ofMinutes(15), Instant.parse("2026-11-02T12:00:00Z"));

    Instance spring = f.instances.findByWindow("spring", "2026-03-08").orElseThrow();
    assertThat(spring.scheduledAt()).isEqualTo(Instant.parse("2026-03-08T07:00:00Z"));
    assertThat(spring.origin()).isEqualTo(Origin.SCHEDULE);
    Instance fall = f.instances.findByWindow("fall", "2026-11-01").orElseThrow();
    assertThat(fall.scheduledAt()).isEqualTo(Instant.parse("2026-11-01T05:30:00Z"));
    assertThat(
            f.instances.list("spring", null, Instant.parse("2026-03-08T00:00:00Z"), 10_000).stream()
                .filter(i -> i.windowKey().equals("2026-03-08"))
                .count())
        .isEqualTo(1);
    assertThat(f.instances.list("fall", null, Instant.parse("2026-11-01T00:00:00Z"), 10_000))
        .extracting(Instance::windowKey)
        .containsExactly("2026-11-02", "2026-11-01");
  }

  // ---------------------------------------------------------------- paused, invalid

  @Test
  void a_paused_task_consumes_its_fire_times_as_decisions_and_resumes_without_back_fill() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(1));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    f.apply(Tasks.daily("digest"));
    f.loop.tickOnce();
    f.tasks.setPaused("digest", true);

    clock.set(DAY1_0800);
    assertThat(f.loop.tickOnce().created()).isEmpty();
    assertThat(f.instances.windowEvents("digest", "2026-11-28"))
        .extracting(InstanceEvent::reason)
        .containsExactly("task paused");
    assertThat(f.tasks.cursors())
        .containsEntry("digest", new TriggerCursor(DAY1_0800, ZoneOffset.UTC));

    f.tasks.setPaused("digest", false);
    clock.set(DAY1_0800.plusSeconds(60));
    assertThat(f.loop.tickOnce().created()).isEmpty();
    clock.set(DAY1_0800.plus(Duration.ofDays(1)));
    assertThat(single(f.loop.tickOnce().created()).windowKey()).isEqualTo("2026-11-29");
    assertThat(f.counter("carillon.trigger.decisions", "kind", "paused")).isEqualTo(1);
  }

  @Test
  void a_deleted_task_never_fires_again_and_when_revived_fires_from_then_without_catching_up() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(1));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    f.apply(Tasks.daily("retired"));
    f.loop.tickOnce();
    clock.set(DAY1_0800);
    assertThat(single(f.loop.tickOnce().created()).windowKey()).isEqualTo("2026-11-28");

    assertThat(f.tasks.delete("retired", "api:test", "no longer needed")).isPresent();
    clock.set(DAY1_0800.plus(Duration.ofDays(1)));
    assertThat(f.loop.tickOnce().created()).as("deleted: no window on day 2").isEmpty();
    assertThat(f.instances.windowEvents("retired", "2026-11-29"))
        .as("not even a decision")
        .isEmpty();
    assertThat(f.tasks.cursors()).doesNotContainKey("retired");
    assertThat(f.loop.holdsNextFireOf("retired"))
        .as("its cached next fire time goes too")
        .isFalse();

    // Revived on day 3 before 08:00: day 2's missed fire (within the catch-up hour) stays missed.
    clock.set(DAY1_0800.plus(Duration.ofDays(2)).minusSeconds(30));
    f.apply(Tasks.daily("retired"));
    assertThat(f.loop.tickOnce().created()).isEmpty();
    clock.set(DAY1_0800.plus(Duration.ofDays(2)));
    assertThat(single(f.loop.tickOnce().created()).windowKey()).isEqualTo("2026-11-30");
    assertThat(f.instances.findByWindow("retired", "2026-11-29")).isEmpty();
  }

  @Test
  void a_task_edited_invalid_in_sql_is_skipped_with_one_error_and_the_others_keep_firing() {
    SettableClock clock = new SettableClock(DAY1_0800);
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    f.apply(
        Tasks.everySeconds("broken", 1).overlap(OverlapPolicy.ALLOW),
        Tasks.everySeconds("healthy", 1).overlap(OverlapPolicy.ALLOW));
    ListAppender<ILoggingEvent> logs = capture(DefinitionCache.class);
    f.loop.tickOnce();
    clock.advance(Duration.ofSeconds(1));
    assertThat(f.loop.tickOnce().created()).hasSize(2);

    db.dsl()
        .update(TASK_DEFINITION)
        .set(TASK_DEFINITION.ZONE, "Mars/Base")
        .where(TASK_DEFINITION.TASK_ID.eq("broken"))
        .execute();
    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofSeconds(1));
      assertThat(f.loop.tickOnce().created())
          .extracting(Instance::taskId)
          .containsExactly("healthy");
    }

    assertThat(logs.list)
        .filteredOn(e -> e.getLevel() == Level.ERROR)
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getFormattedMessage())
                    .contains("broken")
                    .contains("version 1")
                    .contains("Mars/Base"));
    assertThat(f.registry.get("carillon.trigger.tasks.invalid").gauge().value()).isEqualTo(1);
  }

  // ---------------------------------------------------------------- split brain

  /**
   * The leader epoch keeps a second trigger from writing at all (see {@code FencingTest} and the
   * service's fencing test); this is the line behind it, should two ever write under one epoch: the
   * UNIQUE window index and cursors that only move forward.
   */
  @Test
  void two_triggers_ticking_at_once_still_create_one_instance_per_window() throws Exception {
    Instant start = Instant.parse("2026-11-28T08:00:00Z");
    SettableClock clock = new SettableClock(start);
    LoopFixture a = new LoopFixture(db, clock, "trigger:a");
    LoopFixture b = new LoopFixture(db, clock, "trigger:b", a.fence);
    List<TaskDefinition.Builder> defs = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      defs.add(Tasks.everySeconds("allow-" + i, 1).overlap(OverlapPolicy.ALLOW));
      defs.add(Tasks.everySeconds("skip-" + i, 1));
    }
    a.apply(defs.toArray(TaskDefinition.Builder[]::new));
    a.loop.tickOnce();
    int rounds = 30;
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      for (int round = 0; round < rounds; round++) {
        // Sometimes both see the same second, sometimes the clock moves under them.
        clock.advance(Duration.ofSeconds(round % 3 == 0 ? 2 : 1));
        List<Callable<TickResult>> calls = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
          calls.add(t % 2 == 0 ? a.loop::tickOnce : b.loop::tickOnce);
        }
        for (Future<TickResult> r : pool.invokeAll(calls)) {
          r.get();
        }
      }
    } finally {
      pool.shutdownNow();
    }

    long seconds = Duration.between(start, clock.instant()).toSeconds();
    for (TaskDefinition.Builder d : defs) {
      String id = d.build().id();
      List<Instance> rows = a.instances.list(id, null, null, 10_000);
      assertThat(rows).as(id).hasSize((int) seconds);
      assertThat(rows.stream().map(Instance::windowKey).distinct().count()).isEqualTo(seconds);
      assertThat(rows.stream().map(Instance::scheduledAt).toList())
          .as(id + " windows are contiguous")
          .containsExactlyInAnyOrderElementsOf(
              java.util.stream.LongStream.rangeClosed(1, seconds)
                  .mapToObj(start::plusSeconds)
                  .toList());
    }
    // Every created instance was dispatched by exactly the loop that created it.
    List<Long> dispatched = new ArrayList<>();
    a.dispatched.forEach(i -> dispatched.add(i.id()));
    b.dispatched.forEach(i -> dispatched.add(i.id()));
    assertThat(dispatched).doesNotHaveDuplicates();
  }

  // ---------------------------------------------------------------- helpers

  private static void tickEvery(LoopFixture f, SettableClock clock, Duration step, Instant until) {
    while (clock.instant().isBefore(until)) {
      clock.advance(step);
      f.loop.tickOnce();
    }
  }

  private static Instance single(List<Instance> created) {
    assertThat(created).hasSize(1);
    return created.get(0);
  }

  private ListAppender<ILoggingEvent> capture(Class<?> type) {
    Logger logger = (Logger) LoggerFactory.getLogger(type);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    toClose.add(() -> logger.detachAppender(appender));
    return appender;
  }
}
