package dev.carillon.trigger.tick;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.EventText;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.store.Database;
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
 * Issue 24, item 3: a decision the trigger repeats on every fire into the same window is one event
 * row with a count, not one row per fire; a change in between still starts a new row.
 */
@ExtendWith(DevStackExtension.class)
class DecisionCoalescingTest {
  private static final Instant DAY1_0800 = Instant.parse("2026-11-28T08:00:00Z");
  private static final String EVERY_10S = "0/10 * * * * ?";
  private static final int FIRES = 30;

  private Database db;

  @BeforeEach
  void openDatabase() {
    db = TestDatabase.fresh("decision_coalescing");
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void repeated_window_exists_decisions_of_a_daily_task_with_a_10s_cron_are_one_row_per_status() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(1));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    // Planned as "window exists" by the planner (SKIP reads the live instance) and found by the
    // insert (ALLOW does not): both paths write decisions.
    f.apply(
        Tasks.daily("skip", EVERY_10S),
        Tasks.daily("allow", EVERY_10S).overlap(OverlapPolicy.ALLOW));
    f.loop.tickOnce();
    clock.set(DAY1_0800);
    List<Instance> first = f.loop.tickOnce().created();
    assertThat(first).hasSize(2);

    fire(f, clock, FIRES);
    f.leases.claim(first.stream().map(Instance::id).toList(), "w1");
    fire(f, clock, FIRES);

    for (String task : List.of("skip", "allow")) {
      List<InstanceEvent> events = f.instances.windowEvents(task, "2026-11-28");
      assertThat(events)
          .extracting(InstanceEvent::kind, InstanceEvent::reason, InstanceEvent::repeats)
          .containsExactly(
              tuple(InstanceEvent.Kind.CREATED, "created for window 2026-11-28 (SCHEDULE)", 1),
              tuple(InstanceEvent.Kind.DECISION, "window exists, status PENDING", FIRES),
              tuple(InstanceEvent.Kind.TRANSITION, "claimed by w1", 1),
              tuple(InstanceEvent.Kind.DECISION, "window exists, status RUNNING", FIRES));
      InstanceEvent pending = events.get(1);
      // Database times: the first decision's, and the last one's.
      assertThat(pending.lastAt()).isAfter(pending.at());
      assertThat(EventText.of(pending))
          .endsWith("(" + FIRES + " times in a row, last at " + pending.lastAt() + ")");
    }
    assertThat(db.dsl().fetchCount(INSTANCE_EVENT)).isEqualTo(2 * 4);
    // The metric still counts every decision made.
    assertThat(f.counter("carillon.trigger.decisions", "kind", "exists")).isEqualTo(2 * 2 * FIRES);
  }

  @Test
  void a_paused_task_firing_every_10s_into_its_daily_window_writes_one_row() {
    SettableClock clock = new SettableClock(DAY1_0800.minusSeconds(1));
    LoopFixture f = new LoopFixture(db, clock, "trigger:a");
    f.apply(Tasks.daily("digest", EVERY_10S));
    f.loop.tickOnce();
    f.tasks.setPaused("digest", true);

    fire(f, clock, FIRES);

    assertThat(f.instances.windowEvents("digest", "2026-11-28"))
        .extracting(InstanceEvent::reason, InstanceEvent::repeats)
        .containsExactly(tuple("task paused", FIRES));
    assertThat(f.counter("carillon.trigger.decisions", "kind", "paused")).isEqualTo(FIRES);
  }

  /** {@code n} ticks, each one fire time (every 10 s) later. */
  private static void fire(LoopFixture f, SettableClock clock, int n) {
    for (int k = 0; k < n; k++) {
      clock.advance(Duration.ofSeconds(10));
      f.loop.tickOnce();
    }
  }
}
