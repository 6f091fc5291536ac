package dev.carillon.trigger.tick;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One-shot ({@code at}) tasks through the real trigger loop and PostgreSQL: fired once however late
 * the trigger first sees them, never again after a restart, a failover or racing triggers, and
 * fired again only when an apply gives them a new instant.
 */
@ExtendWith(DevStackExtension.class)
class OneShotLoopTest {
  private static final Instant AT = Instant.parse("2026-12-24T08:00:00Z");

  private Database db;

  @BeforeEach
  void openDatabase() {
    db = TestDatabase.fresh("one_shot");
  }

  @AfterEach
  void close() {
    db.close();
  }

  private static TaskDefinition.Builder once(String id, Instant at) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .trigger(new AtTrigger(at, WindowKind.EVERY_FIRE, ZoneOffset.UTC));
  }

  @Test
  void applied_after_its_instant_it_fires_once_as_catch_up_and_a_restarted_trigger_leaves_it() {
    SettableClock clock = new SettableClock(AT.plus(Duration.ofMinutes(20)));
    LoopFixture first = new LoopFixture(db, clock, "trigger:a");
    first.apply(once("remind", AT));

    TickResult tick = first.loop.tickOnce();

    assertThat(tick.created())
        .singleElement()
        .satisfies(
            i -> {
              assertThat(i.origin()).isEqualTo(Origin.CATCHUP);
              assertThat(i.status()).isEqualTo(InstanceStatus.PENDING);
              assertThat(i.scheduledAt()).isEqualTo(AT);
              assertThat(i.windowKey()).isEqualTo("2026-12-24T08:00:00Z");
            });
    assertThat(first.dispatched).hasSize(1);

    // The same loop later, and a new leader after a failover that reads the stored cursor.
    clock.advance(Duration.ofSeconds(1));
    assertThat(first.loop.tickOnce().created()).isEmpty();
    LoopFixture next = new LoopFixture(db, clock, "trigger:b");
    clock.advance(Duration.ofHours(2));
    TickResult afterFailover = next.loop.tickOnce();
    assertThat(afterFailover.created()).isEmpty();
    assertThat(afterFailover.plan().decisions()).isEmpty();
    assertThat(first.instances.list("remind", null, null, 10)).hasSize(1);
  }

  @Test
  void seen_first_beyond_its_catch_up_window_it_is_recorded_skipped_naming_the_window() {
    SettableClock clock = new SettableClock(AT.plus(Duration.ofHours(2)));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    f.apply(once("remind", AT).catchup(Duration.ofMinutes(30)));

    Instance skipped = single(f.loop.tickOnce().created());

    assertThat(skipped.status()).isEqualTo(InstanceStatus.SKIPPED);
    assertThat(skipped.failReason()).isEqualTo("outside catch-up window (30m)");
    assertThat(f.dispatched).isEmpty();
    assertThat(f.counter("carillon.trigger.instances.skipped", "reason", "catchup")).isEqualTo(1);
  }

  @Test
  void triggers_racing_over_a_one_shot_they_first_see_after_its_instant_create_one_instance()
      throws Exception {
    SettableClock clock = new SettableClock(AT.plusSeconds(3));
    // All six under one epoch, as in a split brain the epoch did not catch (see TriggerLoopTest's
    // split-brain test): the line behind the fence is the UNIQUE window index and forward cursors.
    List<LoopFixture> loops = new ArrayList<>();
    LoopFixture first = new LoopFixture(db, clock, "trigger:0");
    loops.add(first);
    for (int i = 1; i < 6; i++) {
      loops.add(new LoopFixture(db, clock, "trigger:" + i, first.fence));
    }
    List<TaskDefinition.Builder> defs = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      defs.add(once("once-" + i, AT.minusSeconds(i)));
    }
    loops.get(0).apply(defs.toArray(TaskDefinition.Builder[]::new));
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      for (int round = 0; round < 3; round++) {
        List<Callable<TickResult>> calls = new ArrayList<>();
        loops.forEach(l -> calls.add(l.loop::tickOnce));
        for (Future<TickResult> r : pool.invokeAll(calls)) {
          r.get();
        }
        clock.advance(Duration.ofSeconds(1));
      }
    } finally {
      pool.shutdownNow();
    }

    for (int i = 0; i < 20; i++) {
      assertThat(loops.get(0).instances.list("once-" + i, null, null, 10))
          .as("once-" + i)
          .singleElement()
          .satisfies(x -> assertThat(x.status()).isEqualTo(InstanceStatus.PENDING));
    }
    List<Long> dispatched = new ArrayList<>();
    loops.forEach(l -> l.dispatched.forEach(x -> dispatched.add(x.id())));
    assertThat(dispatched).hasSize(20).doesNotHaveDuplicates();
  }

  @Test
  void an_apply_that_moves_the_instant_into_the_recent_past_fires_it_again_once() {
    SettableClock clock = new SettableClock(AT.minusSeconds(5));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    f.apply(once("remind", AT));
    f.loop.tickOnce();
    clock.set(AT);
    single(f.loop.tickOnce().created());

    // Ten minutes later the one-shot is moved to two minutes before its old instant: this loop's
    // cursor (AT, from the tick that fired it) is already past the new instant, so without
    // forgetting it the new instant would never be evaluated.
    clock.set(AT.plus(Duration.ofMinutes(10)));
    f.loop.tickOnce();
    Instant moved = AT.minus(Duration.ofMinutes(2));
    f.apply(once("remind", moved));
    Instance second = single(f.loop.tickOnce().created());
    assertThat(second.scheduledAt()).isEqualTo(moved);
    assertThat(second.origin()).isEqualTo(Origin.CATCHUP);

    // Neither this loop nor a new leader reading the stored cursors fires it again.
    clock.advance(Duration.ofSeconds(1));
    assertThat(f.loop.tickOnce().created()).isEmpty();
    assertThat(new LoopFixture(db, clock, "trigger:b").loop.tickOnce().created()).isEmpty();
    // An apply that changes something else (the params) leaves the fired one-shot alone.
    f.apply(once("remind", moved).paramsJson("{\"step\":2}"));
    clock.advance(Duration.ofSeconds(1));
    TickResult afterParams = f.loop.tickOnce();
    assertThat(afterParams.created()).isEmpty();
    assertThat(afterParams.existing()).isEmpty();
    assertThat(f.instances.list("remind", null, null, 10)).hasSize(2);
    assertThat(f.instances.windowEvents("remind", "2026-12-24T07:58:00Z"))
        .extracting(InstanceEvent::kind)
        .containsExactly(InstanceEvent.Kind.CREATED);
  }

  @Test
  void a_new_leader_after_an_apply_that_moved_the_instant_fires_it_from_the_stored_state() {
    SettableClock clock = new SettableClock(AT);
    LoopFixture old = new LoopFixture(db, clock, "trigger:a");
    old.apply(once("remind", AT.minusSeconds(1)));
    single(old.loop.tickOnce().created());
    clock.set(AT.plus(Duration.ofMinutes(10)));
    old.loop.tickOnce();

    // Moved while the leader is down to before the stored cursor (AT, from the tick that fired
    // it): the apply forgot that cursor, or the new leader would never evaluate the new instant.
    Instant moved = AT.minus(Duration.ofMinutes(5));
    old.apply(once("remind", moved));
    LoopFixture leader = new LoopFixture(db, clock, "trigger:b");
    Instance fired = single(leader.loop.tickOnce().created());

    assertThat(fired.scheduledAt()).isEqualTo(moved);
    clock.advance(Duration.ofSeconds(1));
    assertThat(leader.loop.tickOnce().created()).isEmpty();
  }

  private static Instance single(List<Instance> created) {
    assertThat(created).hasSize(1);
    return created.get(0);
  }
}
