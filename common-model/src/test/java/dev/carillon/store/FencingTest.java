package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every leader-only write is refused, whole and in the same statement, once a newer epoch was
 * taken; and taking one waits for the writes still in progress under the old epoch.
 */
@Timeout(120)
class FencingTest {
  private Stores s;
  private EpochStore epochs;

  @BeforeEach
  void open() {
    s = Stores.fresh("fencing");
    epochs = new EpochStore(s.db.dsl());
  }

  @AfterEach
  void close() {
    s.close();
  }

  @Test
  void epochs_only_grow_and_name_their_holder() {
    Fence first = epochs.begin("svc", "a");
    Fence second = epochs.begin("svc", "b");

    assertThat(second.epoch()).isEqualTo(first.epoch() + 1);
    assertThat(epochs.current("svc").orElseThrow().holder()).isEqualTo("b");
    assertThat(epochs.holds(first)).isFalse();
    assertThat(epochs.holds(second)).isTrue();
    assertThat(epochs.current("other")).isEmpty();
  }

  @Test
  void a_tick_under_a_deposed_epoch_writes_no_window_decision_or_cursor() {
    String task = s.newTask("tick");
    Fence old = s.triggerFence;
    Fence current = epochs.begin("trigger", "successor");
    TriggerCursor cursor = new TriggerCursor(Instant.parse("2026-11-29T08:00:00Z"), ZoneOffset.UTC);

    assertThatThrownBy(
            () ->
                s.windows.commitTick(
                    List.of(Tasks.pending(task, "2026-11-29", Duration.ofMinutes(1))),
                    List.of(new Decision(task, "2026-11-28", null, "old", "window exists")),
                    Map.of(task, cursor),
                    "old",
                    old))
        .isInstanceOf(FencedException.class)
        .hasMessageContaining("tick commit")
        .hasMessageContaining("trigger epoch " + old.epoch());

    assertThat(s.operator.list(task, null, null, 10)).isEmpty();
    assertThat(s.operator.windowEvents(task, "2026-11-28")).isEmpty();
    assertThat(s.tasks.cursors()).doesNotContainKey(task);

    List<Instance> created =
        s.windows.commitTick(
            List.of(Tasks.pending(task, "2026-11-29", Duration.ofMinutes(1))),
            List.of(),
            Map.of(task, cursor),
            "new",
            current);
    assertThat(created).hasSize(1);
    assertThat(s.tasks.cursors()).containsEntry(task, cursor);
  }

  @Test
  void every_other_leader_write_of_the_trigger_refuses_a_deposed_epoch_and_changes_nothing() {
    String task = s.newTask("trigger-writes");
    Instance pending = s.newPending(task, "2026-11-29");
    Instance done = s.claimOne(task, "2026-11-30", "w");
    s.leases.complete(new Lease(done.id(), 1), Outcome.success("ok", false, null), "w");
    Instance finished = s.operator.find(done.id()).orElseThrow();
    Fence old = s.triggerFence;
    epochs.begin("trigger", "successor");
    ConditionStore conditions = new ConditionStore(s.db.dsl());
    DependencyQueries dependencies = new DependencyQueries(s.db.dsl());
    NewInstance fresh = Tasks.pending(task, "2026-03-01", Duration.ofMinutes(1));

    assertRefused(() -> s.windows.create(List.of(fresh), "old", old));
    assertRefused(
        () ->
            s.windows.recordDecisions(
                List.of(new Decision(task, "2026-03-02", null, "old", "x")), old));
    assertRefused(() -> s.windows.rerun(finished, "old", "again", old));
    assertRefused(() -> s.windows.markDispatched(List.of(pending.id()), old));
    assertRefused(
        () -> conditions.save(task, new ConditionStore.State("2026-11-29", Instant.EPOCH, 1), old));
    assertRefused(() -> dependencies.saveOffset("dependency:events", 42, old));

    assertThat(s.operator.findByWindow(task, "2026-03-01")).isEmpty();
    assertThat(s.operator.windowEvents(task, "2026-03-02")).isEmpty();
    assertThat(s.operator.find(finished.id()).orElseThrow()).isEqualTo(finished);
    assertThat(s.operator.find(pending.id()).orElseThrow().dispatchedAt()).isNull();
    assertThat(conditions.all()).isEmpty();
    assertThat(dependencies.offset("dependency:events")).isZero();
  }

  @Test
  void every_write_of_the_retry_service_refuses_a_deposed_epoch_and_changes_nothing() {
    String task = s.newTask("retry-writes");
    Instance running = s.claimOne(task, "2026-11-29", "w");
    s.db
        .dsl()
        .execute(
            "update task_instance set lease_until = now() - interval '1 second' where id = ?",
            running.id());
    Instance failing = s.claimOne(task, "2026-11-30", "w");
    s.leases.complete(new Lease(failing.id(), 1), Outcome.failure("boom", false), "w");
    Instance failed = s.operator.find(failing.id()).orElseThrow();
    Instance pending = s.newPending(task, "2026-03-01");
    Instance succeeding = s.claimOne(task, "2026-03-02", "w");
    s.leases.complete(new Lease(succeeding.id(), 1), Outcome.success("ok", false, null), "w");
    Fence old = s.retryFence;
    epochs.begin("retry", "successor");
    ArchiveStore archive = new ArchiveStore(s.db.dsl());

    assertRefused(() -> s.retries.expireLeases(10, "old", old));
    assertRefused(() -> s.retries.scheduleRetry(failed, Instant.EPOCH, 1L, "old", "r", old));
    assertRefused(() -> s.retries.markDead(failed, 1L, "old", "dead", false, old));
    assertRefused(() -> s.retries.quarantine(failed, "decision", "undecidable", "old", old));
    assertRefused(
        () ->
            s.retries.claimForDispatch(
                List.of(pending.id()), Duration.ZERO, Duration.ofHours(1), old));
    assertRefused(() -> s.retries.markDispatched(List.of(pending.id()), old));
    assertRefused(() -> s.retries.markAlerted(failed.id(), old));
    assertRefused(() -> archive.archiveFinished(Duration.ZERO, 10, old));

    assertThat(s.operator.find(running.id()).orElseThrow().status())
        .isEqualTo(InstanceStatus.RUNNING);
    assertThat(s.operator.find(failed.id()).orElseThrow()).isEqualTo(failed);
    assertThat(s.operator.find(pending.id()).orElseThrow().dispatchedAt()).isNull();
    assertThat(archive.isArchived(succeeding.id())).isFalse();
    assertThat(s.operator.find(succeeding.id())).isPresent();
    assertThat(s.operator.events(failed.id()))
        .as("no event by the deposed leader")
        .noneMatch(e -> e.actor().equals("old"));
  }

  @Test
  void a_compare_and_set_lost_to_another_actor_is_not_reported_as_fenced() {
    String task = s.newTask("lost-cas");
    Instance failing = s.claimOne(task, "2026-11-29", "w");
    s.leases.complete(new Lease(failing.id(), 1), Outcome.failure("boom", false), "w");
    Instance failed = s.operator.find(failing.id()).orElseThrow();
    assertThat(s.retries.markDead(failed, 1L, "retry", "dead", false, s.retryFence)).isTrue();

    assertThat(s.retries.scheduleRetry(failed, Instant.EPOCH, 1L, "retry", "late", s.retryFence))
        .as("the row moved on; the fence is current")
        .isFalse();
    assertThat(
            s.windows.create(
                List.of(Tasks.pending(task, "2026-11-29", Duration.ofMinutes(5))),
                "t",
                s.triggerFence))
        .as("the window exists")
        .isEmpty();
  }

  /**
   * Writers under epoch 1 race a successor taking epoch 2, on many threads: once {@code begin}
   * returned, not one more write of epoch 1 commits. Each writer stops at its first refusal.
   */
  @Test
  void once_a_new_epoch_is_taken_no_write_of_the_old_one_commits() throws Exception {
    String task = s.newTask("race");
    Fence old = s.triggerFence;
    int writers = 8;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    AtomicBoolean go = new AtomicBoolean(true);
    CountDownLatch writing = new CountDownLatch(writers);
    List<Future<Integer>> refusedAfter = new ArrayList<>();
    try {
      for (int w = 0; w < writers; w++) {
        int writer = w;
        refusedAfter.add(
            pool.submit(
                () -> {
                  int n = 0;
                  writing.countDown();
                  while (go.get()) {
                    String key = "w" + writer + "-" + n++;
                    try {
                      s.windows.create(
                          List.of(Tasks.pendingKey(task, key, Duration.ofMinutes(1))), "old", old);
                    } catch (FencedException e) {
                      return n;
                    }
                  }
                  return -1;
                }));
      }
      assertThat(writing.await(30, TimeUnit.SECONDS)).isTrue();
      await("the writers of epoch 1 have written").until(() -> count(task) >= 50);
      epochs.begin("trigger", "successor");
      int atBegin = count(task);
      for (Future<Integer> f : refusedAfter) {
        assertThat(f.get(60, TimeUnit.SECONDS)).as("every writer was refused").isPositive();
      }
      assertThat(count(task))
          .as("rows of epoch 1 committed after epoch 2 was taken")
          .isEqualTo(atBegin);
    } finally {
      go.set(false);
      pool.shutdownNow();
    }
  }

  /** A transaction that passed the fence holds it: the successor's {@code begin} waits for it. */
  @Test
  void taking_an_epoch_waits_for_a_transaction_that_passed_the_old_one() throws Exception {
    Fence old = s.triggerFence;
    CountDownLatch checked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> writer =
          pool.submit(
              () ->
                  s.db
                      .dsl()
                      .transaction(
                          cfg -> {
                            assertThat(DSL.using(cfg).fetchValue(DSL.field(Fences.current(old))))
                                .isTrue();
                            checked.countDown();
                            release.await();
                          }));
      assertThat(checked.await(30, TimeUnit.SECONDS)).isTrue();
      Future<Fence> successor = pool.submit(() -> epochs.begin("trigger", "successor"));
      await("the successor waits for the writer's lock on its epoch")
          .until(
              () ->
                  s.db
                          .dsl()
                          .fetchOne(
                              "select count(*) from pg_stat_activity where datname ="
                                  + " current_database() and wait_event_type = 'Lock' and query"
                                  + " like '%leader_epoch%'")
                          .get(0, Long.class)
                      == 1L);
      assertThat(successor.isDone()).isFalse();
      assertThat(epochs.holds(old)).as("still current while the writer is open").isTrue();

      release.countDown();
      writer.get(30, TimeUnit.SECONDS);
      Fence next = successor.get(30, TimeUnit.SECONDS);
      assertThat(next.epoch()).isEqualTo(old.epoch() + 1);
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  private int count(String task) {
    return s.operator.list(task, null, null, 100_000).size();
  }

  private static void assertRefused(ThrowingCallable write) {
    assertThatThrownBy(write).isInstanceOf(FencedException.class);
  }
}
