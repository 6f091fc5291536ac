package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.testsupport.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Decisions repeating the latest event of their window are counted on it, never lost. */
class DecisionCoalescingStoreTest {
  private static Database db;
  private static WindowStore windows;
  private static OperatorStore operator;
  private static Fence fence;

  @BeforeAll
  static void open() {
    db = TestDatabase.fresh("decision_store");
    windows = new WindowStore(db.dsl());
    operator = new OperatorStore(db.dsl());
    fence = new EpochStore(db.dsl()).begin("trigger", "decision-store-test");
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void a_batch_counts_identical_neighbours_and_keeps_a_different_decision_in_between_apart() {
    Decision a = new Decision("batch", "w", null, "trigger:t", "waiting for upstream u");
    Decision b = new Decision("batch", "w", null, "trigger:t", "task paused");
    windows.recordDecisions(List.of(a, a, a, b, a), fence);
    windows.recordDecisions(List.of(a, a), fence);

    assertThat(operator.windowEvents("batch", "w"))
        .extracting(InstanceEvent::reason, InstanceEvent::repeats)
        .containsExactly(
            tuple("waiting for upstream u", 3),
            tuple("task paused", 1),
            tuple("waiting for upstream u", 3));
  }

  @Test
  void a_decision_is_not_counted_on_another_actors_or_another_windows_row() {
    windows.recordDecisions(
        List.of(new Decision("other", "w1", null, "trigger:a", "task paused")), fence);
    windows.recordDecisions(
        List.of(new Decision("other", "w1", null, "trigger:b", "task paused")), fence);
    windows.recordDecisions(
        List.of(new Decision("other", "w2", null, "trigger:b", "task paused")), fence);

    assertThat(operator.windowEvents("other", "w1"))
        .extracting(InstanceEvent::actor, InstanceEvent::repeats)
        .containsExactly(tuple("trigger:a", 1), tuple("trigger:b", 1));
    assertThat(operator.windowEvents("other", "w2")).hasSize(1);
  }

  @Test
  void eight_writers_repeating_one_decision_at_once_lose_no_count() throws Exception {
    int threads = 8;
    int each = 40;
    Decision d = new Decision("race", "w", null, "trigger:t", "window exists, status RUNNING");
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int k = 0; k < each; k++) {
                    windows.recordDecisions(List.of(d), fence);
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }

    List<InstanceEvent> events = operator.windowEvents("race", "w");
    assertThat(events.stream().mapToInt(InstanceEvent::repeats).sum()).isEqualTo(threads * each);
    // Racing inserts may each add a row where one would do, but far fewer than one per decision.
    assertThat(events).hasSizeLessThanOrEqualTo(threads);
    assertThat(db.dsl().fetchCount(INSTANCE_EVENT, INSTANCE_EVENT.TASK_ID.eq("race")))
        .isEqualTo(events.size());
  }
}
