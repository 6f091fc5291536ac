package dev.carillon.store;

import static dev.carillon.model.instance.InstanceStatus.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.instance.IllegalTransitionException;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class InstanceStoreTest {
  private static final int RACERS = 16;
  private static Database db;
  private static InstanceStore instances;
  private static TaskStore tasks;

  @BeforeAll
  static void open() {
    db = TestDatabase.fresh("store");
    instances = new InstanceStore(db.dsl());
    tasks = new TaskStore(db.dsl());
  }

  @AfterAll
  static void close() {
    db.close();
  }

  private static String newTask(String id) {
    tasks.applyAll(List.of(Tasks.daily(id).build()));
    return id;
  }

  private static Instance newPending(String task, String day) {
    return instances
        .insertAll(List.of(Tasks.pending(task, day, Duration.ofMinutes(5))), "test")
        .get(0);
  }

  /** Runs {@code n} copies of {@code body} released at the same instant; returns their results. */
  private static <T> List<T> race(int n, Callable<T> body) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch ready = new CountDownLatch(n);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        futures.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return body.call();
                }));
      }
      assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
      go.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : futures) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void sixteen_threads_inserting_the_same_window_leave_exactly_one_row() throws Exception {
    String task = newTask("race-insert");
    List<List<Instance>> results =
        race(
            RACERS,
            () ->
                instances.insertAll(
                    List.of(Tasks.pending(task, "2026-11-29", Duration.ofMinutes(5))), "t"));

    assertThat(results.stream().mapToInt(List::size).sum()).isEqualTo(1);
    assertThat(instances.list(task, null, null, 100)).hasSize(1);
    Instance row = instances.findByWindow(task, "2026-11-29").orElseThrow();
    assertThat(instances.events(row.id()))
        .filteredOn(e -> e.kind() == InstanceEvent.Kind.CREATED)
        .hasSize(1);
  }

  @Test
  void a_batch_insert_returns_only_the_new_windows() {
    String task = newTask("batch-insert");
    newPending(task, "2026-11-01");
    List<Instance> created =
        instances.insertAll(
            List.of(
                Tasks.pending(task, "2026-11-01", Duration.ofMinutes(5)),
                Tasks.pending(task, "2026-11-02", Duration.ofMinutes(5)),
                Tasks.pending(task, "2026-11-03", Duration.ofMinutes(5))),
            "t");
    assertThat(created).extracting(Instance::windowKey).containsExactly("2026-11-02", "2026-11-03");
    assertThat(created).allSatisfy(i -> assertThat(i.status()).isEqualTo(PENDING));
  }

  @Test
  void sixteen_threads_claiming_one_instance_produce_exactly_one_winner() throws Exception {
    String task = newTask("race-claim");
    Instance pending = newPending(task, "2026-11-29");
    int[] worker = {0};
    List<List<Instance>> results =
        race(RACERS, () -> instances.claim(List.of(pending.id()), "w-" + (worker[0]++ % RACERS)));

    List<Instance> winners = results.stream().flatMap(List::stream).toList();
    assertThat(winners).hasSize(1);
    Instance won = winners.get(0);
    assertThat(won.attempt()).isEqualTo(1);
    assertThat(won.status()).isEqualTo(RUNNING);
    assertThat(won.leaseUntil()).isAfter(won.startedAt());
    Instance row = instances.find(pending.id()).orElseThrow();
    assertThat(row.attempt()).isEqualTo(1);
    assertThat(row.workerId()).isEqualTo(won.workerId());
    assertThat(instances.events(pending.id()))
        .filteredOn(e -> e.to() == RUNNING)
        .singleElement()
        .satisfies(e -> assertThat(e.actor()).isEqualTo(won.workerId()));
  }

  @Test
  void sixteen_threads_completing_one_claim_write_once() throws Exception {
    String task = newTask("race-complete");
    Instance claimed = claimOne(task, "2026-11-29", "w1");
    List<Boolean> results =
        race(
            RACERS,
            () ->
                instances.complete(
                    new Lease(claimed.id(), claimed.attempt()),
                    Outcome.success("ok", false, null),
                    "w1"));
    assertThat(results).containsOnlyOnce(true);
    assertThat(instances.events(claimed.id())).filteredOn(e -> e.to() == SUCCESS).hasSize(1);
  }

  private Instance claimOne(String task, String day, String worker) {
    Instance pending = newPending(task, day);
    return instances.claim(List.of(pending.id()), worker).get(0);
  }

  @Test
  void a_complete_with_a_stale_attempt_changes_nothing() {
    String task = newTask("stale");
    Instance first = claimOne(task, "2026-11-29", "zombie");
    // The lease is stolen: the instance goes back to PENDING and another worker claims attempt 2.
    assertThat(instances.release(new Lease(first.id(), first.attempt()), "test", "lease stolen"))
        .isTrue();
    Instance second = instances.claim(List.of(first.id()), "fresh").get(0);
    assertThat(second.attempt()).isEqualTo(2);
    int eventsBefore = instances.events(first.id()).size();

    boolean written =
        instances.complete(
            new Lease(first.id(), first.attempt()),
            Outcome.failure("zombie says boom", false),
            "zombie");

    assertThat(written).isFalse();
    Instance row = instances.find(first.id()).orElseThrow();
    assertThat(row.status()).isEqualTo(RUNNING);
    assertThat(row.attempt()).isEqualTo(2);
    assertThat(row.workerId()).isEqualTo("fresh");
    assertThat(row.failReason()).isNull();
    assertThat(instances.events(first.id())).hasSize(eventsBefore);
    assertThat(instances.heartbeat("zombie", List.of(new Lease(first.id(), 1)))).isEmpty();
    assertThat(instances.heartbeat("fresh", List.of(new Lease(first.id(), 2))))
        .containsExactly(first.id());
  }

  @Test
  void a_claim_returns_the_stored_rows_and_records_one_event_per_claimed_instance() {
    String task = newTask("claimcte");
    List<Instance> pending =
        instances.insertAll(
            List.of(
                Tasks.pending(task, "2026-11-27", Duration.ofMinutes(5)),
                Tasks.pending(task, "2026-11-28", Duration.ofMinutes(5))),
            "test");
    Instance taken = instances.claim(List.of(pending.get(0).id()), "w0").get(0);

    // One of the two is no longer PENDING: only the other is claimed, and only it gets an event.
    List<Instance> claimed =
        instances.claim(List.of(pending.get(0).id(), pending.get(1).id()), "w9");
    assertThat(claimed).extracting(Instance::id).containsExactly(pending.get(1).id());
    Instance stored = instances.find(pending.get(1).id()).orElseThrow();
    assertThat(claimed.get(0)).isEqualTo(stored);
    assertThat(stored.status()).isEqualTo(InstanceStatus.RUNNING);
    assertThat(stored.attempt()).isEqualTo(1);
    assertThat(stored.workerId()).isEqualTo("w9");
    assertThat(stored.leaseUntil()).isAfter(stored.startedAt());
    assertThat(instances.events(stored.id()))
        .filteredOn(e -> e.to() == InstanceStatus.RUNNING)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.from()).isEqualTo(InstanceStatus.PENDING);
              assertThat(e.attempt()).isEqualTo(1);
              assertThat(e.actor()).isEqualTo("w9");
              assertThat(e.reason()).isEqualTo("claimed by w9");
            });
    assertThat(instances.events(taken.id()))
        .filteredOn(e -> e.to() == InstanceStatus.RUNNING)
        .extracting(InstanceEvent::actor)
        .containsExactly("w0");
  }

  @Test
  void a_claim_for_a_run_returns_the_stored_values_a_run_needs() {
    String task = newTask("claim-run");
    Instance first = claimOne(task, "2026-11-29", "w1");
    assertThat(instances.complete(new Lease(first.id(), 1), Outcome.failure("boom 1", false), "w1"))
        .isTrue();
    assertThat(
            instances.scheduleRetry(
                instances.find(first.id()).orElseThrow(),
                Instant.parse("2000-01-01T00:00:00Z"),
                1L,
                "retry",
                "retry 1 of 3"))
        .isTrue();
    assertThat(instances.promoteDueRetries(100, "retry"))
        .extracting(Instance::id)
        .contains(first.id());

    List<ClaimedInstance> claimed = instances.claimForRun(List.of(first.id()), "w2");

    Instance stored = instances.find(first.id()).orElseThrow();
    assertThat(claimed)
        .containsExactly(
            new ClaimedInstance(
                stored.id(),
                task,
                "2026-11-29",
                stored.windowStart(),
                stored.windowEnd(),
                stored.scheduledAt(),
                2,
                1,
                stored.timeout(),
                "boom 1"));
    assertThat(stored.status()).isEqualTo(RUNNING);
    assertThat(stored.workerId()).isEqualTo("w2");
    assertThat(instances.events(first.id()))
        .filteredOn(e -> e.to() == RUNNING)
        .extracting(InstanceEvent::attempt, InstanceEvent::actor)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, "w1"),
            org.assertj.core.groups.Tuple.tuple(2, "w2"));
    assertThat(instances.claimForRun(List.of(first.id()), "w3")).as("already running").isEmpty();
  }

  @Test
  void every_transition_leaves_an_event_row() {
    String task = newTask("history");
    Instance i = claimOne(task, "2026-11-29", "w1");
    assertThat(instances.complete(new Lease(i.id(), 1), Outcome.failure("boom", false), "w1"))
        .isTrue();
    Instance failed = instances.find(i.id()).orElseThrow();
    assertThat(
            instances.scheduleRetry(
                failed, Instant.parse("2000-01-01T00:00:00Z"), 1L, "retry", "retry 1 of 3"))
        .isTrue();
    assertThat(instances.promoteDueRetries(100, "retry")).extracting(Instance::id).contains(i.id());
    Instance again = instances.claim(List.of(i.id()), "w2").get(0);
    assertThat(again.attempt()).isEqualTo(2);
    assertThat(again.retryCount()).isEqualTo(1);
    assertThat(
            instances.complete(
                new Lease(i.id(), 2), Outcome.success("done", false, "file:///x"), "w2"))
        .isTrue();

    List<InstanceEvent> events = instances.events(i.id());
    assertThat(events)
        .extracting(e -> e.from() + ">" + e.to())
        .containsExactly(
            "null>PENDING",
            "PENDING>RUNNING",
            "RUNNING>FAILED",
            "FAILED>RETRY_WAIT",
            "RETRY_WAIT>PENDING",
            "PENDING>RUNNING",
            "RUNNING>SUCCESS");
    assertThat(events).allSatisfy(e -> assertThat(e.actor()).isNotBlank());
    Instance done = instances.find(i.id()).orElseThrow();
    assertThat(done.resultUri()).isEqualTo("file:///x");
    assertThat(done.finishedAt()).isNotNull();
    assertThat(done.leaseUntil()).isNull();
  }

  @Test
  void an_illegal_transition_throws_and_leaves_the_row_untouched() {
    String task = newTask("illegal");
    Instance pending = newPending(task, "2026-11-29");
    assertThatThrownBy(() -> instances.transition(pending.id(), PENDING, null, SUCCESS, "t", "x"))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("PENDING")
        .hasMessageContaining("SUCCESS");
    assertThat(instances.find(pending.id()).orElseThrow()).isEqualTo(pending);
    assertThat(instances.events(pending.id())).hasSize(1);
  }

  @Test
  void a_compare_and_set_from_the_wrong_status_changes_nothing() {
    String task = newTask("wrong-from");
    Instance pending = newPending(task, "2026-11-29");
    assertThat(instances.transition(pending.id(), RETRY_WAIT, null, CANCELLED, "op", "x"))
        .isFalse();
    assertThat(instances.find(pending.id()).orElseThrow().status()).isEqualTo(PENDING);
    assertThat(instances.transition(pending.id(), PENDING, null, CANCELLED, "op", "by operator"))
        .isTrue();
    assertThat(instances.find(pending.id()).orElseThrow().finishedAt()).isNotNull();
  }

  @Test
  void expired_leases_become_timeout_by_the_database_clock() {
    String task = newTask("expire");
    Instance running = claimOne(task, "2026-11-29", "w1");
    Instance fresh = claimOne(task, "2026-11-30", "w1");
    db.dsl()
        .execute(
            "update task_instance set lease_until = now() - interval '1 second' where id = ?",
            running.id());
    List<Instance> expired = instances.expireLeases(100, "retry");
    assertThat(expired).extracting(Instance::id).containsExactly(running.id());
    assertThat(instances.find(running.id()).orElseThrow().status()).isEqualTo(TIMEOUT);
    assertThat(instances.find(fresh.id()).orElseThrow().status()).isEqualTo(RUNNING);
    // A zombie that wakes up after the timeout cannot write.
    assertThat(
            instances.complete(
                new Lease(running.id(), 1), Outcome.success("late", false, null), "w1"))
        .isFalse();
  }

  @Test
  void two_scanners_expiring_at_once_move_each_row_once() throws Exception {
    String task = newTask("expire-race");
    List<Long> ids = new ArrayList<>();
    for (int d = 1; d <= 40; d++) {
      Instance p =
          instances
              .insertAll(List.of(Tasks.pendingKey(task, "k-" + d, Duration.ofMinutes(5))), "t")
              .get(0);
      ids.add(instances.claim(List.of(p.id()), "w").get(0).id());
    }
    db.dsl()
        .execute(
            "update task_instance set lease_until = now() - interval '1 second' where task_id = ?",
            task);
    List<List<Instance>> results = race(4, () -> instances.expireLeases(15, "retry"));
    List<Long> moved = results.stream().flatMap(List::stream).map(Instance::id).toList();
    assertThat(moved).doesNotHaveDuplicates();
    List<Long> rest = instances.expireLeases(100, "retry").stream().map(Instance::id).toList();
    assertThat(new java.util.HashSet<>(concat(moved, rest)))
        .containsExactlyInAnyOrderElementsOf(ids);
    assertThat(instances.countByStatus(task)).containsEntry(TIMEOUT, 40);
  }

  private static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  @Test
  void a_dispatch_stamp_skips_a_row_another_transaction_holds_instead_of_waiting_for_it()
      throws Exception {
    String task = newTask("dispatch-locked");
    Instance held = newPending(task, "2026-11-01");
    Instance free = newPending(task, "2026-11-02");
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch stamped = new CountDownLatch(1);
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      // Another transaction (in production: a worker's claim) holds the row lock of `held`.
      Future<?> holder =
          other.submit(
              () ->
                  db.dsl()
                      .transaction(
                          cfg -> {
                            org.jooq
                                .impl
                                .DSL
                                .using(cfg)
                                .execute(
                                    "select id from task_instance where id = ? for update",
                                    held.id());
                            locked.countDown();
                            assertThat(stamped.await(30, TimeUnit.SECONDS)).isTrue();
                          }));
      assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();

      // Returns while the lock is still held (the holder waits for `stamped`), so it did not wait.
      assertThat(instances.markDispatched(List.of(held.id(), free.id()))).isEqualTo(1);
      stamped.countDown();
      holder.get(30, TimeUnit.SECONDS);
    } finally {
      stamped.countDown();
      other.shutdownNow();
    }
    assertThat(instances.find(free.id()).orElseThrow().dispatchedAt()).isNotNull();
    assertThat(instances.find(held.id()).orElseThrow().dispatchedAt())
        .as("skipped: a later sweep publishes it again")
        .isNull();
  }

  @Test
  void undispatched_pending_instances_are_found_until_stamped() {
    String task = newTask("dispatch");
    Instance a = newPending(task, "2026-11-01");
    Instance b = newPending(task, "2026-11-02");
    assertThat(instances.undispatched(Duration.ZERO, Duration.ofMinutes(5), 1000))
        .extracting(Instance::id)
        .contains(a.id(), b.id());
    assertThat(instances.markDispatched(List.of(a.id()))).isEqualTo(1);
    assertThat(instances.undispatched(Duration.ZERO, Duration.ofMinutes(5), 1000))
        .extracting(Instance::id)
        .contains(b.id())
        .doesNotContain(a.id());
    db.dsl()
        .execute(
            "update task_instance set dispatched_at = now() - interval '10 minutes' where id = ?",
            a.id());
    assertThat(instances.undispatched(Duration.ZERO, Duration.ofMinutes(5), 1000))
        .extracting(Instance::id)
        .contains(a.id());
  }

  @Test
  void a_tick_commit_moves_cursors_forward_only() {
    String task = newTask("cursor");
    Instant later = Instant.parse("2026-11-29T10:00:00Z");
    Instant earlier = Instant.parse("2026-11-29T09:00:00Z");
    instances.commitTick(
        List.of(Tasks.pending(task, "2026-11-29", Duration.ofMinutes(1))),
        List.of(),
        Map.of(task, later),
        "trigger");
    List<Instance> again =
        instances.commitTick(
            List.of(Tasks.pending(task, "2026-11-29", Duration.ofMinutes(1))),
            List.of(
                new Decision(task, "2026-11-29", null, "trigger", "window exists, status PENDING")),
            Map.of(task, earlier),
            "trigger");
    assertThat(again).isEmpty();
    assertThat(tasks.cursors()).containsEntry(task, later);
    assertThat(instances.windowEvents(task, "2026-11-29"))
        .extracting(InstanceEvent::kind)
        .containsExactly(InstanceEvent.Kind.CREATED, InstanceEvent.Kind.DECISION);
  }

  @Test
  void heartbeats_renew_only_leases_still_held() {
    String task = newTask("heartbeat");
    Instance a = claimOne(task, "2026-11-01", "w1");
    Instance b = claimOne(task, "2026-11-02", "w1");
    assertThat(instances.complete(new Lease(b.id(), 1), Outcome.success("x", false, null), "w1"))
        .isTrue();
    Set<Long> renewed =
        instances.heartbeat("w1", List.of(new Lease(a.id(), 1), new Lease(b.id(), 1)));
    assertThat(renewed).containsExactly(a.id());
    assertThat(instances.heartbeat("w2", List.of(new Lease(a.id(), 1)))).isEmpty();
  }

  @Test
  void a_skipped_window_is_recorded_finished_with_its_reason() {
    String task = newTask("skipped");
    Instance s =
        instances
            .insertAll(
                List.of(
                    dev.carillon.model.instance.NewInstance.skipped(
                        task,
                        new dev.carillon.model.schedule.Window(
                            "2026-11-29",
                            Instant.parse("2026-11-29T00:00:00Z"),
                            Instant.parse("2026-11-30T00:00:00Z")),
                        Instant.parse("2026-11-29T08:00:00Z"),
                        dev.carillon.model.instance.Origin.CATCHUP,
                        Duration.ofMinutes(1),
                        "outside catch-up window")),
                "trigger")
            .get(0);
    assertThat(s.status()).isEqualTo(InstanceStatus.SKIPPED);
    assertThat(s.failReason()).isEqualTo("outside catch-up window");
    assertThat(s.finishedAt()).isNotNull();
    assertThat(instances.claim(List.of(s.id()), "w")).isEmpty();
  }

  @Test
  void a_bulk_move_moves_no_more_than_its_limit() {
    String task = newTask("bulk-limit");
    for (int k = 0; k < 30; k++) {
      Instance p =
          instances
              .insertAll(List.of(Tasks.pendingKey(task, "k-" + k, Duration.ofMinutes(5))), "t")
              .get(0);
      Instance claimed = instances.claim(List.of(p.id()), "w").get(0);
      instances.complete(new Lease(claimed.id(), 1), Outcome.failure("boom", false), "w");
      instances.scheduleRetry(
          instances.find(p.id()).orElseThrow(),
          Instant.parse("2000-01-01T00:00:00Z"),
          1L,
          "retry",
          "r");
    }
    assertThat(instances.promoteDueRetries(7, "retry")).hasSize(7);
    assertThat(instances.countByStatus(task))
        .containsEntry(PENDING, 7)
        .containsEntry(RETRY_WAIT, 23);
  }

  private Instance claimKey(String task, String key, String worker) {
    Instance p =
        instances
            .insertAll(List.of(Tasks.pendingKey(task, key, Duration.ofMinutes(5))), "t")
            .get(0);
    return instances.claim(List.of(p.id()), worker).get(0);
  }

  @Test
  void a_batch_completion_writes_every_current_attempt_and_skips_a_stale_one() {
    String task = newTask("batch-complete");
    Instance ok = claimKey(task, "ok", "w1");
    Instance failed = claimKey(task, "failed", "w1");
    Instance stale = claimKey(task, "stale", "zombie");
    // The stale one's lease was stolen: attempt 2 belongs to another worker.
    assertThat(instances.release(new Lease(stale.id(), 1), "test", "lease stolen")).isTrue();
    Instance fresh = instances.claim(List.of(stale.id()), "fresh").get(0);
    assertThat(fresh.attempt()).isEqualTo(2);
    int staleEventsBefore = instances.events(stale.id()).size();

    Set<Lease> written =
        instances.completeAll(
            List.of(
                new Completion(new Lease(ok.id(), 1), Outcome.success("done", true, "s3://x")),
                new Completion(new Lease(stale.id(), 1), Outcome.failure("zombie boom", false)),
                new Completion(new Lease(failed.id(), 1), Outcome.failure("boom", true))),
            "w1");

    assertThat(written).containsExactlyInAnyOrder(new Lease(ok.id(), 1), new Lease(failed.id(), 1));
    Instance okRow = instances.find(ok.id()).orElseThrow();
    assertThat(okRow.status()).isEqualTo(SUCCESS);
    assertThat(okRow.resultSummary()).isEqualTo("done");
    assertThat(okRow.resultTruncated()).isTrue();
    assertThat(okRow.resultUri()).isEqualTo("s3://x");
    assertThat(okRow.finishedAt()).isNotNull();
    assertThat(okRow.leaseUntil()).isNull();
    Instance failedRow = instances.find(failed.id()).orElseThrow();
    assertThat(failedRow.status()).isEqualTo(FAILED);
    assertThat(failedRow.failReason()).isEqualTo("boom");
    assertThat(failedRow.nonRetryable()).isTrue();
    assertThat(failedRow.leaseUntil()).isNull();
    Instance staleRow = instances.find(stale.id()).orElseThrow();
    assertThat(staleRow.status()).isEqualTo(RUNNING);
    assertThat(staleRow.attempt()).isEqualTo(2);
    assertThat(staleRow.workerId()).isEqualTo("fresh");
    assertThat(staleRow.failReason()).isNull();

    // One event per written row, none for the stale one.
    assertThat(instances.events(ok.id()))
        .filteredOn(e -> e.from() == RUNNING)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.to()).isEqualTo(SUCCESS);
              assertThat(e.attempt()).isEqualTo(1);
              assertThat(e.actor()).isEqualTo("w1");
              assertThat(e.reason()).isEqualTo("succeeded");
            });
    assertThat(instances.events(failed.id()))
        .filteredOn(e -> e.from() == RUNNING)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.to()).isEqualTo(FAILED);
              assertThat(e.reason()).isEqualTo("boom");
            });
    assertThat(instances.events(stale.id())).hasSize(staleEventsBefore);
  }

  @Test
  void a_batch_completion_matches_a_single_completion_row_for_row() {
    String task = newTask("batch-vs-single");
    Instance single = claimKey(task, "single", "w");
    Instance batched = claimKey(task, "batched", "w");
    Outcome timeout = Outcome.timeout("too slow");
    assertThat(instances.complete(new Lease(single.id(), 1), timeout, "w")).isTrue();
    assertThat(
            instances.completeAll(
                List.of(new Completion(new Lease(batched.id(), 1), timeout)), "w"))
        .containsExactly(new Lease(batched.id(), 1));
    Instance a = instances.find(single.id()).orElseThrow();
    Instance b = instances.find(batched.id()).orElseThrow();
    assertThat(b.status()).isEqualTo(a.status()).isEqualTo(TIMEOUT);
    assertThat(b.failReason()).isEqualTo(a.failReason());
    assertThat(b.nonRetryable()).isEqualTo(a.nonRetryable());
    assertThat(b.resultSummary()).isEqualTo(a.resultSummary());
    assertThat(b.finishedAt() == null).isEqualTo(a.finishedAt() == null);
    assertThat(b.leaseUntil()).isNull();
  }

  @Test
  void a_batch_completion_rejects_an_instance_twice_and_an_empty_batch_writes_nothing() {
    String task = newTask("batch-twice");
    Instance i = claimKey(task, "twice", "w");
    assertThat(instances.completeAll(List.of(), "w")).isEmpty();
    assertThatThrownBy(
            () ->
                instances.completeAll(
                    List.of(
                        new Completion(new Lease(i.id(), 1), Outcome.success("a", false, null)),
                        new Completion(new Lease(i.id(), 1), Outcome.success("b", false, null))),
                    "w"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(instances.find(i.id()).orElseThrow().status()).isEqualTo(RUNNING);
  }

  @Test
  void sixteen_threads_completing_overlapping_batches_write_each_row_once() throws Exception {
    String task = newTask("race-batch-complete");
    List<Instance> claimed = new ArrayList<>();
    for (int k = 0; k < 40; k++) {
      claimed.add(claimKey(task, "k-" + k, "w"));
    }
    int[] racer = {0};
    List<Set<Lease>> results =
        race(
            RACERS,
            () -> {
              int me;
              synchronized (racer) {
                me = racer[0]++;
              }
              // Each racer takes a different, overlapping window of the 40 rows, in its own order.
              List<Completion> batch = new ArrayList<>();
              for (int k = 0; k < 20; k++) {
                Instance i = claimed.get((me * 3 + k * (me % 2 == 0 ? 1 : -1) + 40) % 40);
                batch.add(
                    new Completion(
                        new Lease(i.id(), i.attempt()), Outcome.success("by " + me, false, null)));
              }
              return instances.completeAll(batch, "racer-" + me);
            });

    List<Lease> all = results.stream().flatMap(Set::stream).toList();
    assertThat(all).doesNotHaveDuplicates();
    assertThat(all).hasSize(40);
    for (Instance i : claimed) {
      assertThat(instances.find(i.id()).orElseThrow().status()).isEqualTo(SUCCESS);
      assertThat(instances.events(i.id())).filteredOn(e -> e.to() == SUCCESS).hasSize(1);
    }
  }
}
