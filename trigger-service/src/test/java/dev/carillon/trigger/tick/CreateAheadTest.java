package dev.carillon.trigger.tick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.Origin;
import dev.carillon.store.Database;
import dev.carillon.store.Lease;
import dev.carillon.store.Outcome;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code trigger.create-ahead}: a tick that runs before a fire time creates its window then, once,
 * with the fire time as {@code scheduled_at}; what may still change by the fire time (a pause, a
 * live run under SKIP) is decided by the tick at the fire time, as without it.
 */
@ExtendWith(DevStackExtension.class)
class CreateAheadTest {
  private static final Instant DAY1_0800 = Instant.parse("2026-11-28T08:00:00Z");
  private static final Duration AHEAD = Duration.ofMillis(200);

  private Database db;

  @BeforeEach
  void openDatabase() {
    db = TestDatabase.fresh("create_ahead");
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void a_tick_ahead_of_the_fire_time_creates_the_window_once_scheduled_at_the_fire_time() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(2));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a", AHEAD);
    f.apply(Tasks.daily("digest"));
    f.loop.tickOnce(); // first sight: the cursor starts now

    clock.set(DAY1_0800.minusSeconds(1));
    assertThat(f.loop.tickOnce().created()).as("a second before: beyond the horizon").isEmpty();

    clock.set(DAY1_0800.minus(AHEAD));
    TickResult ahead = f.loop.tickOnce();
    assertThat(ahead.created()).hasSize(1);
    Instance created = ahead.created().get(0);
    assertThat(created.status()).isEqualTo(InstanceStatus.PENDING);
    assertThat(created.scheduledAt()).isEqualTo(DAY1_0800);
    assertThat(created.origin()).isEqualTo(Origin.SCHEDULE);
    assertThat(f.dispatched).extracting(Instance::id).containsExactly(created.id());

    clock.set(DAY1_0800);
    assertThat(f.loop.tickOnce().created()).as("the tick at the fire time").isEmpty();
    clock.set(DAY1_0800.plusSeconds(1));
    assertThat(f.loop.tickOnce().created()).isEmpty();
    assertThat(f.instances.windowEvents("digest", "2026-11-28"))
        .as("created once, and no tick decided the window again")
        .extracting(InstanceEvent::kind)
        .containsExactly(InstanceEvent.Kind.CREATED);
  }

  @Test
  void a_paused_task_is_decided_at_its_fire_time_so_a_resume_just_before_it_still_runs() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(2));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a", AHEAD);
    f.apply(Tasks.daily("digest"));
    f.tasks.setPaused("digest", true);
    f.loop.tickOnce();

    clock.set(DAY1_0800.minus(AHEAD));
    TickResult ahead = f.loop.tickOnce();
    assertThat(ahead.created()).isEmpty();
    assertThat(ahead.plan().decisions()).as("no 'task paused' decided ahead").isEmpty();

    f.tasks.setPaused("digest", false);
    clock.set(DAY1_0800);
    List<Instance> atFire = f.loop.tickOnce().created();
    assertThat(atFire).hasSize(1);
    assertThat(atFire.get(0).status()).isEqualTo(InstanceStatus.PENDING);
    assertThat(atFire.get(0).scheduledAt()).isEqualTo(DAY1_0800);
  }

  @Test
  void under_skip_a_run_still_live_ahead_of_the_next_fire_does_not_skip_it_if_it_ends_in_time() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(2));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a", AHEAD);
    f.apply(Tasks.everySeconds("poll", 10));
    f.loop.tickOnce();
    clock.set(DAY1_0800.minus(AHEAD));
    Instance first = f.loop.tickOnce().created().get(0);
    assertThat(f.leases.claim(List.of(first.id()), "w1")).hasSize(1);

    Instant next = DAY1_0800.plusSeconds(10);
    clock.set(next.minus(AHEAD));
    TickResult ahead = f.loop.tickOnce();
    assertThat(ahead.created())
        .as("neither created nor recorded SKIPPED while the run may still end in time")
        .isEmpty();

    assertThat(
            f.leases.complete(new Lease(first.id(), 1), Outcome.success("ok", false, null), "w1"))
        .isTrue();
    clock.set(next);
    List<Instance> atFire = f.loop.tickOnce().created();
    assertThat(atFire).hasSize(1);
    assertThat(atFire.get(0).status()).isEqualTo(InstanceStatus.PENDING);
    assertThat(atFire.get(0).scheduledAt()).isEqualTo(next);
  }

  @Test
  void a_create_ahead_of_a_whole_tick_interval_or_more_is_refused_naming_both() {
    assertThatThrownBy(
            () ->
                new LoopFixture(
                    db, new SettableClock(DAY1_0800), "trigger:a", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("createAhead")
        .hasMessageContaining("PT1S");
  }
}
