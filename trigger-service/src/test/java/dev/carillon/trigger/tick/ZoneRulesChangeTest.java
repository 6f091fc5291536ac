package dev.carillon.trigger.tick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.MovableZone;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A zone's rules change under a running system: the update arrives after the change it brings took
 * effect, so the offset at the trigger's cursors differs between the rules they were computed with
 * and the rules now in force. The rules change at 07:00Z on 2026-03-08; the loop goes on, restarted
 * with the new rules or not, until 10:00Z the next day.
 *
 * <p>An hourly task with {@code HOURLY} windows (keys hold the local hour and the offset) must get
 * every local hour exactly once: taken as it is, its cursor (07:00Z, 09:00 or 10:00 local) would
 * evaluate an hour twice when the offset drops and skip one when it rises. Three tasks firing daily
 * at 09:30 (one per window kind whose key holds the instant, the offset or the date) must get one
 * window a day, at 09:30 local time.
 */
@ExtendWith(DevStackExtension.class)
class ZoneRulesChangeTest {
  private static final Instant START = Instant.parse("2026-03-08T05:00:00Z");
  private static final Instant CHANGE = Instant.parse("2026-03-08T07:00:00Z");
  private static final Instant END = Instant.parse("2026-03-09T10:00:00Z");
  private static final Duration TICK = Duration.ofMinutes(10);

  private Database db;

  @BeforeEach
  void openDatabase() {
    db = TestDatabase.fresh("zone_rules");
  }

  @AfterEach
  void close() {
    db.close();
  }

  @ParameterizedTest(name = "{0} then {1}, restarted: {2}")
  @CsvSource({
    // Summer time abolished late: 09:30 +03:00 (06:30Z) fired before the update; under the new
    // rules 09:30 is 07:30Z, which must not fire again.
    "+03:00, +02:00, true,  SCHEDULE, 2026-03-09T07:30:00Z",
    "+03:00, +02:00, false, SCHEDULE, 2026-03-09T07:30:00Z",
    // Summer time brought in late: 09:30 +02:00 (07:30Z) had not fired; under the new rules 09:30
    // is 06:30Z, already past, and must still fire (as soon as the update is in).
    "+02:00, +03:00, true,  CATCHUP,  2026-03-09T06:30:00Z",
    "+02:00, +03:00, false, CATCHUP,  2026-03-09T06:30:00Z",
  })
  void a_tzdata_update_that_moves_the_offset_at_the_cursor_neither_loses_nor_doubles_a_window(
      ZoneOffset before,
      ZoneOffset after,
      boolean restart,
      Origin firstOrigin,
      Instant secondFire) {
    MovableZone.set(ZoneRules.of(before), "before");
    SettableClock clock = new SettableClock(START);
    LoopFixture running = new LoopFixture(db, clock, "trigger:a");
    running.apply(
        task("hourly", "0 0 * * * ?", WindowKind.HOURLY),
        task("each-fire", "0 30 9 * * ?", WindowKind.EVERY_FIRE),
        task("each-hour", "0 30 9 * * ?", WindowKind.HOURLY),
        task("each-day", "0 30 9 * * ?", WindowKind.DAILY));
    running.loop.tickOnce();
    tickEvery(running, clock, CHANGE);

    MovableZone.set(ZoneRules.of(after), "after");
    LoopFixture updated = restart ? new LoopFixture(db, clock, "trigger:b") : running;
    tickEvery(updated, clock, END);

    // Every local hour from the first fire (06:00Z) to the last (10:00Z next day), once each.
    List<String> hours = new ArrayList<>();
    LocalDateTime last = LocalDateTime.ofInstant(END, after);
    for (LocalDateTime h = LocalDateTime.ofInstant(START.plusSeconds(3600), before);
        !h.isAfter(last);
        h = h.plusHours(1)) {
      hours.add(h.toString().substring(0, 13));
    }
    assertThat(windows("hourly").stream().map(k -> k.substring(0, 13)).toList())
        .containsExactlyElementsOf(hours);

    Instant firstFire = Instant.parse("2026-03-08T06:30:00Z"); // 09:30 +03:00
    assertThat(windows("each-fire")).containsExactly(firstFire.toString(), secondFire.toString());
    assertThat(windows("each-hour"))
        .containsExactly("2026-03-08T09+03:00", "2026-03-09T09" + after.getId());
    assertThat(windows("each-day")).containsExactly("2026-03-08", "2026-03-09");
    for (String task : List.of("each-fire", "each-hour", "each-day")) {
      assertThat(instances(task))
          .extracting(Instance::scheduledAt, Instance::origin)
          .as(task)
          .containsExactly(tuple(firstFire, firstOrigin), tuple(secondFire, Origin.SCHEDULE));
    }
    assertThat(updated.counter("carillon.trigger.cursor.moved")).isEqualTo(4);
  }

  @Test
  void a_change_added_ahead_while_the_loop_runs_moves_the_next_fire_with_it() {
    MovableZone.set(ZoneRules.of(ZoneOffset.ofHours(2)), "before");
    SettableClock clock = new SettableClock(START);
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    f.apply(task("each-hour", "0 30 9 * * ?", WindowKind.HOURLY));
    f.loop.tickOnce();
    tickEvery(f, clock, Instant.parse("2026-03-08T12:00:00Z"));

    // The update announces summer time from 2026-03-09 00:00Z on: the cursor's offset is the
    // same, but the next 09:30 (computed and cached under the old rules as 07:30Z) is 06:30Z now.
    ZoneOffsetTransition summer =
        ZoneOffsetTransition.of(
            LocalDateTime.parse("2026-03-09T02:00"), ZoneOffset.ofHours(2), ZoneOffset.ofHours(3));
    MovableZone.set(
        ZoneRules.of(
            ZoneOffset.ofHours(2),
            ZoneOffset.ofHours(2),
            List.of(summer),
            List.of(summer),
            List.of()),
        "after");
    tickEvery(f, clock, END);

    assertThat(instances("each-hour"))
        .extracting(Instance::windowKey, Instance::scheduledAt, Instance::origin)
        .containsExactly(
            tuple("2026-03-08T09+02:00", Instant.parse("2026-03-08T07:30:00Z"), Origin.SCHEDULE),
            tuple("2026-03-09T09+03:00", Instant.parse("2026-03-09T06:30:00Z"), Origin.SCHEDULE));
    assertThat(f.counter("carillon.trigger.cursor.moved")).isZero();
  }

  /** A task in the movable zone; ALLOW, so that no window is skipped for overlap. */
  private static TaskDefinition.Builder task(String id, String cron, WindowKind window) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .cron(cron, MovableZone.zone(), window)
        .overlap(OverlapPolicy.ALLOW);
  }

  private List<Instance> instances(String task) {
    return new dev.carillon.store.OperatorStore(db.dsl())
        .list(task, null, null, 100).stream()
            // 10:00 +03:00 is the instant 09:00 +02:00 was: creation order breaks the tie.
            .sorted(Comparator.comparing(Instance::scheduledAt).thenComparing(Instance::id))
            .toList();
  }

  private List<String> windows(String task) {
    return instances(task).stream().map(Instance::windowKey).toList();
  }

  private static void tickEvery(LoopFixture f, SettableClock clock, Instant until) {
    while (clock.instant().isBefore(until)) {
      clock.advance(TICK);
      f.loop.tickOnce();
    }
  }
}
