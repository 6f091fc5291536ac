package dev.carillon.store;

import static dev.carillon.model.instance.InstanceStatus.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.instance.Progress;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.worker.Serves;
import dev.carillon.testsupport.Tasks;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The worker's writes: claims, heartbeats, ends and releases, each fenced by status and attempt.
 */
class LeaseStoreTest {
  private static final int RACERS = 16;

  /** A worker of the default queue that runs the test tasks' handler. */
  private static final Serves NOOP = new Serves(Set.of("default"), Set.of("noop"));

  private static Stores s;
  private static LeaseStore leases;
  private static OperatorStore operator;

  @BeforeAll
  static void open() {
    s = Stores.fresh("store_leases");
    leases = s.leases;
    operator = s.operator;
  }

  @AfterAll
  static void close() {
    s.close();
  }

  @Test
  void sixteen_threads_claiming_one_instance_produce_exactly_one_winner() throws Exception {
    String task = s.newTask("race-claim");
    Instance pending = s.newPending(task, "2026-11-29");
    int[] worker = {0};
    List<List<Instance>> results =
        Stores.race(
            RACERS, () -> leases.claim(List.of(pending.id()), "w-" + (worker[0]++ % RACERS)));

    List<Instance> winners = results.stream().flatMap(List::stream).toList();
    assertThat(winners).hasSize(1);
    Instance won = winners.get(0);
    assertThat(won.attempt()).isEqualTo(1);
    assertThat(won.status()).isEqualTo(RUNNING);
    assertThat(won.leaseUntil()).isAfter(won.startedAt());
    Instance row = operator.find(pending.id()).orElseThrow();
    assertThat(row.attempt()).isEqualTo(1);
    assertThat(row.workerId()).isEqualTo(won.workerId());
    assertThat(operator.events(pending.id()))
        .filteredOn(e -> e.to() == RUNNING)
        .singleElement()
        .satisfies(e -> assertThat(e.actor()).isEqualTo(won.workerId()));
  }

  /**
   * A lease begins when its claim statement runs, so a worker counts it from just before the
   * statement is sent; the wait for a pooled connection before that is not part of it. A CI run of
   * the fault suite counted that wait (PostgreSQL was restarting), and a worker stopped seven runs
   * whose fresh leases had ten seconds left.
   */
  @Test
  void a_claim_tells_the_time_it_was_sent_once_a_connection_was_held_not_while_it_waited()
      throws Exception {
    try (Stores one = Stores.fresh("store_leases_wait", 1)) {
      Instance pending = one.newPending(one.newTask("claim-wait"), "2026-11-29");
      AtomicLong sent = new AtomicLong();
      AtomicReference<Thread> claimer = new AtomicReference<>();
      long released;
      CompletableFuture<List<ClaimedInstance>> claim;
      try (Connection held = one.db.dataSource().getConnection()) {
        claim =
            CompletableFuture.supplyAsync(
                () -> {
                  claimer.set(Thread.currentThread());
                  return one.leases.claimForRun(List.of(pending.id()), "w1", NOOP, sent::set);
                });
        // Waiting in the pool for the one connection this test holds.
        Awaitility.await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    claimer.get() != null
                        && claimer.get().getState() == Thread.State.TIMED_WAITING);
        assertThat(sent.get()).as("nothing sent while the connection is held").isZero();
        released = System.nanoTime();
      }

      assertThat(claim.get(30, TimeUnit.SECONDS)).hasSize(1);
      assertThat(sent.get()).isGreaterThan(released);
    }
  }

  @Test
  void sixteen_threads_completing_one_claim_write_once() throws Exception {
    String task = s.newTask("race-complete");
    Instance claimed = s.claimOne(task, "2026-11-29", "w1");
    List<Boolean> results =
        Stores.race(
            RACERS,
            () ->
                leases.complete(
                    new Lease(claimed.id(), claimed.attempt()),
                    Outcome.success("ok", false, null),
                    "w1"));
    assertThat(results).containsOnlyOnce(true);
    assertThat(operator.events(claimed.id())).filteredOn(e -> e.to() == SUCCESS).hasSize(1);
  }

  @Test
  void a_complete_with_a_stale_attempt_changes_nothing() {
    String task = s.newTask("stale");
    Instance first = s.claimOne(task, "2026-11-29", "zombie");
    // The lease is stolen: the instance goes back to PENDING and another worker claims attempt 2.
    assertThat(leases.release(new Lease(first.id(), first.attempt()), "test", "lease stolen"))
        .isTrue();
    Instance second = leases.claim(List.of(first.id()), "fresh").get(0);
    assertThat(second.attempt()).isEqualTo(2);
    int eventsBefore = operator.events(first.id()).size();

    boolean written =
        leases.complete(
            new Lease(first.id(), first.attempt()),
            Outcome.failure("zombie says boom", false),
            "zombie");

    assertThat(written).isFalse();
    Instance row = operator.find(first.id()).orElseThrow();
    assertThat(row.status()).isEqualTo(RUNNING);
    assertThat(row.attempt()).isEqualTo(2);
    assertThat(row.workerId()).isEqualTo("fresh");
    assertThat(row.failReason()).isNull();
    assertThat(operator.events(first.id())).hasSize(eventsBefore);
    assertThat(leases.heartbeat("zombie", List.of(new Lease(first.id(), 1)))).isEmpty();
    assertThat(leases.heartbeat("fresh", List.of(new Lease(first.id(), 2))))
        .containsExactly(first.id());
  }

  @Test
  void a_release_gives_the_run_back_undispatched_and_only_once() {
    String task = s.newTask("release");
    Instance claimed = s.claimOne(task, "2026-11-29", "w1");
    assertThat(leases.markDispatched(List.of(claimed.id()))).as("not PENDING").isZero();

    assertThat(leases.release(new Lease(claimed.id(), 1), "w1", "worker shutting down")).isTrue();
    assertThat(leases.release(new Lease(claimed.id(), 1), "w1", "again")).isFalse();

    Instance row = operator.find(claimed.id()).orElseThrow();
    assertThat(row.status()).isEqualTo(PENDING);
    assertThat(row.attempt()).isEqualTo(1);
    assertThat(row.retryCount()).as("no retry consumed").isZero();
    assertThat(row.leaseUntil()).isNull();
    assertThat(row.workerId()).isNull();
    assertThat(row.dispatchedAt()).isNull();
    assertThat(leases.markDispatched(List.of(claimed.id()))).isEqualTo(1);
    assertThat(operator.events(claimed.id()))
        .filteredOn(e -> e.from() == RUNNING)
        .extracting(InstanceEvent::to, InstanceEvent::reason)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(PENDING, "worker shutting down"));
  }

  @Test
  void a_claim_returns_the_stored_rows_and_records_one_event_per_claimed_instance() {
    String task = s.newTask("claimcte");
    List<Instance> pending =
        s.windows.create(
            List.of(
                Tasks.pending(task, "2026-11-27", Duration.ofMinutes(5)),
                Tasks.pending(task, "2026-11-28", Duration.ofMinutes(5))),
            "test");
    Instance taken = leases.claim(List.of(pending.get(0).id()), "w0").get(0);

    // One of the two is no longer PENDING: only the other is claimed, and only it gets an event.
    List<Instance> claimed = leases.claim(List.of(pending.get(0).id(), pending.get(1).id()), "w9");
    assertThat(claimed).extracting(Instance::id).containsExactly(pending.get(1).id());
    Instance stored = operator.find(pending.get(1).id()).orElseThrow();
    assertThat(claimed.get(0)).isEqualTo(stored);
    assertThat(stored.status()).isEqualTo(InstanceStatus.RUNNING);
    assertThat(stored.attempt()).isEqualTo(1);
    assertThat(stored.workerId()).isEqualTo("w9");
    assertThat(stored.leaseUntil()).isAfter(stored.startedAt());
    assertThat(operator.events(stored.id()))
        .filteredOn(e -> e.to() == InstanceStatus.RUNNING)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.from()).isEqualTo(InstanceStatus.PENDING);
              assertThat(e.attempt()).isEqualTo(1);
              assertThat(e.actor()).isEqualTo("w9");
              assertThat(e.reason()).isEqualTo("claimed by w9");
            });
    assertThat(operator.events(taken.id()))
        .filteredOn(e -> e.to() == InstanceStatus.RUNNING)
        .extracting(InstanceEvent::actor)
        .containsExactly("w0");
  }

  @Test
  void a_claim_for_a_run_returns_the_stored_values_a_run_needs() {
    String task = s.newTask("claim-run");
    Instance first = s.claimOne(task, "2026-11-29", "w1");
    assertThat(leases.complete(new Lease(first.id(), 1), Outcome.failure("boom 1", false), "w1"))
        .isTrue();
    assertThat(
            s.retries.scheduleRetry(
                operator.find(first.id()).orElseThrow(),
                Instant.parse("2000-01-01T00:00:00Z"),
                1L,
                "retry",
                "retry 1 of 3",
                s.retryFence))
        .isTrue();
    assertThat(s.retries.promoteDueRetries(100, "retry", s.retryFence))
        .extracting(Instance::id)
        .contains(first.id());

    List<ClaimedInstance> claimed = leases.claimForRun(List.of(first.id()), "w2", NOOP);

    Instance stored = operator.find(first.id()).orElseThrow();
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
    assertThat(operator.events(first.id()))
        .filteredOn(e -> e.to() == RUNNING)
        .extracting(InstanceEvent::attempt, InstanceEvent::actor)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, "w1"),
            org.assertj.core.groups.Tuple.tuple(2, "w2"));
    assertThat(leases.claimForRun(List.of(first.id()), "w3", NOOP)).as("already running").isEmpty();
  }

  @Test
  void heartbeats_renew_only_leases_still_held() {
    String task = s.newTask("heartbeat");
    Instance a = s.claimOne(task, "2026-11-01", "w1");
    Instance b = s.claimOne(task, "2026-11-02", "w1");
    assertThat(leases.complete(new Lease(b.id(), 1), Outcome.success("x", false, null), "w1"))
        .isTrue();
    Set<Long> renewed = leases.heartbeat("w1", List.of(new Lease(a.id(), 1), new Lease(b.id(), 1)));
    assertThat(renewed).containsExactly(a.id());
    assertThat(leases.heartbeat("w2", List.of(new Lease(a.id(), 1)))).isEmpty();
  }

  @Test
  void a_heartbeat_writes_changed_progress_keeps_unchanged_progress_and_clears_an_empty_one() {
    String task = s.newTask("progress");
    Instance a = s.claimOne(task, "2026-11-01", "w1");
    Instance b = s.claimOne(task, "2026-11-02", "w1");
    Lease la = new Lease(a.id(), 1);
    Lease lb = new Lease(b.id(), 1);
    Instant reported = Instant.parse("2026-11-01T10:15:30.123456789Z");
    leases.heartbeat("w1", List.of(la, lb), Map.of(la, new Progress("read 3 of 10", reported)));
    Instance row = operator.find(a.id()).orElseThrow();
    assertThat(row.progress()).isEqualTo("read 3 of 10");
    // Whole microseconds, as PostgreSQL keeps them.
    assertThat(row.progressAt()).isEqualTo(Instant.parse("2026-11-01T10:15:30.123457Z"));
    assertThat(operator.find(b.id()).orElseThrow().progress()).isNull();

    // A beat without a report for a keeps a's; b's report is written.
    leases.heartbeat("w1", List.of(la, lb), Map.of(lb, new Progress("b starts", reported)));
    assertThat(operator.find(a.id()).orElseThrow().progress()).isEqualTo("read 3 of 10");
    assertThat(operator.find(b.id()).orElseThrow().progress()).isEqualTo("b starts");

    // An empty report clears it.
    leases.heartbeat("w1", List.of(la), Map.of(la, new Progress("", reported)));
    assertThat(operator.find(a.id()).orElseThrow().progress()).isNull();
    assertThat(operator.find(a.id()).orElseThrow().progressAt()).isNull();
  }

  @Test
  void a_stale_attempts_progress_is_fenced_out_and_the_end_writes_the_last_report() {
    String task = s.newTask("progress-fence");
    Instance first = s.claimOne(task, "2026-11-29", "w1");
    Lease stale = new Lease(first.id(), 1);
    assertThat(leases.release(stale, "test", "lease stolen")).isTrue();
    leases.claim(List.of(first.id()), "w2");
    Lease current = new Lease(first.id(), 2);
    Instant t = Instant.parse("2026-11-29T08:00:00Z");
    leases.heartbeat("w2", List.of(current), Map.of(current, new Progress("attempt 2", t)));

    assertThat(leases.heartbeat("w1", List.of(stale), Map.of(stale, new Progress("zombie", t))))
        .isEmpty();
    assertThat(
            leases.completeAll(
                List.of(
                    new AttemptEnd(
                        stale, Outcome.failure("zombie", false), new Progress("zombie end", t))),
                "w1"))
        .isEmpty();
    assertThat(operator.find(first.id()).orElseThrow().progress()).isEqualTo("attempt 2");

    assertThat(
            leases.completeAll(
                List.of(
                    new AttemptEnd(
                        current,
                        Outcome.success("ok", false, null),
                        new Progress("10 of 10", t.plusSeconds(1)))),
                "w2"))
        .containsExactly(current);
    Instance row = operator.find(first.id()).orElseThrow();
    assertThat(row.progress()).isEqualTo("10 of 10");
    assertThat(row.progressAt()).isEqualTo(t.plusSeconds(1));

    // An end without a report leaves the stored one.
    Instance other = s.claimOne(task, "2026-11-30", "w2");
    Lease lo = new Lease(other.id(), 1);
    leases.heartbeat("w2", List.of(lo), Map.of(lo, new Progress("half", t)));
    leases.completeAll(List.of(new AttemptEnd(lo, Outcome.failure("boom", false))), "w2");
    assertThat(operator.find(other.id()).orElseThrow().progress()).isEqualTo("half");
  }

  @Test
  void the_claim_states_say_where_each_instance_stands_and_omit_unknown_ids() {
    String task = s.newTask("claim-states");
    Instance running = s.claimOne(task, "2026-11-01", "w1");
    Instance pending = s.newPending(task, "2026-11-02");

    assertThat(leases.claimStates(List.of(running.id(), pending.id(), Long.MAX_VALUE)))
        .containsOnlyKeys(running.id(), pending.id())
        .containsEntry(
            running.id(),
            new LeaseStore.ClaimState("RUNNING", 1, "w1", "default", "noop", null, null))
        .containsEntry(
            pending.id(),
            new LeaseStore.ClaimState("PENDING", 0, null, "default", "noop", null, null));
    assertThat(leases.claimStates(List.of())).isEmpty();
  }

  @Test
  void a_batch_completion_writes_every_current_attempt_and_skips_a_stale_one() {
    String task = s.newTask("batch-complete");
    Instance ok = s.claimKey(task, "ok", "w1");
    Instance failed = s.claimKey(task, "failed", "w1");
    Instance stale = s.claimKey(task, "stale", "zombie");
    // The stale one's lease was stolen: attempt 2 belongs to another worker.
    assertThat(leases.release(new Lease(stale.id(), 1), "test", "lease stolen")).isTrue();
    Instance fresh = leases.claim(List.of(stale.id()), "fresh").get(0);
    assertThat(fresh.attempt()).isEqualTo(2);
    int staleEventsBefore = operator.events(stale.id()).size();

    Set<Lease> written =
        leases.completeAll(
            List.of(
                new AttemptEnd(new Lease(ok.id(), 1), Outcome.success("done", true, "s3://x")),
                new AttemptEnd(new Lease(stale.id(), 1), Outcome.failure("zombie boom", false)),
                new AttemptEnd(new Lease(failed.id(), 1), Outcome.failure("boom", true))),
            "w1");

    assertThat(written).containsExactlyInAnyOrder(new Lease(ok.id(), 1), new Lease(failed.id(), 1));
    Instance okRow = operator.find(ok.id()).orElseThrow();
    assertThat(okRow.status()).isEqualTo(SUCCESS);
    assertThat(okRow.resultSummary()).isEqualTo("done");
    assertThat(okRow.resultTruncated()).isTrue();
    assertThat(okRow.resultUri()).isEqualTo("s3://x");
    assertThat(okRow.finishedAt()).isNotNull();
    assertThat(okRow.leaseUntil()).isNull();
    Instance failedRow = operator.find(failed.id()).orElseThrow();
    assertThat(failedRow.status()).isEqualTo(FAILED);
    assertThat(failedRow.failReason()).isEqualTo("boom");
    assertThat(failedRow.nonRetryable()).isTrue();
    assertThat(failedRow.leaseUntil()).isNull();
    Instance staleRow = operator.find(stale.id()).orElseThrow();
    assertThat(staleRow.status()).isEqualTo(RUNNING);
    assertThat(staleRow.attempt()).isEqualTo(2);
    assertThat(staleRow.workerId()).isEqualTo("fresh");
    assertThat(staleRow.failReason()).isNull();

    // One event per written row, none for the stale one.
    assertThat(operator.events(ok.id()))
        .filteredOn(e -> e.from() == RUNNING)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.to()).isEqualTo(SUCCESS);
              assertThat(e.attempt()).isEqualTo(1);
              assertThat(e.actor()).isEqualTo("w1");
              assertThat(e.reason()).isEqualTo("succeeded");
            });
    assertThat(operator.events(failed.id()))
        .filteredOn(e -> e.from() == RUNNING)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.to()).isEqualTo(FAILED);
              assertThat(e.reason()).isEqualTo("boom");
            });
    assertThat(operator.events(stale.id())).hasSize(staleEventsBefore);
  }

  @Test
  void a_batch_completion_matches_a_single_completion_row_for_row() {
    String task = s.newTask("batch-vs-single");
    Instance single = s.claimKey(task, "single", "w");
    Instance batched = s.claimKey(task, "batched", "w");
    Outcome timeout = Outcome.timeout("too slow");
    assertThat(leases.complete(new Lease(single.id(), 1), timeout, "w")).isTrue();
    assertThat(
            leases.completeAll(List.of(new AttemptEnd(new Lease(batched.id(), 1), timeout)), "w"))
        .containsExactly(new Lease(batched.id(), 1));
    Instance a = operator.find(single.id()).orElseThrow();
    Instance b = operator.find(batched.id()).orElseThrow();
    assertThat(b.status()).isEqualTo(a.status()).isEqualTo(TIMEOUT);
    assertThat(b.failReason()).isEqualTo(a.failReason());
    assertThat(b.nonRetryable()).isEqualTo(a.nonRetryable());
    assertThat(b.resultSummary()).isEqualTo(a.resultSummary());
    assertThat(b.finishedAt() == null).isEqualTo(a.finishedAt() == null);
    assertThat(b.leaseUntil()).isNull();
  }

  @Test
  void a_batch_completion_rejects_an_instance_twice_and_an_empty_batch_writes_nothing() {
    String task = s.newTask("batch-twice");
    Instance i = s.claimKey(task, "twice", "w");
    assertThat(leases.completeAll(List.of(), "w")).isEmpty();
    assertThatThrownBy(
            () ->
                leases.completeAll(
                    List.of(
                        new AttemptEnd(new Lease(i.id(), 1), Outcome.success("a", false, null)),
                        new AttemptEnd(new Lease(i.id(), 1), Outcome.success("b", false, null))),
                    "w"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(operator.find(i.id()).orElseThrow().status()).isEqualTo(RUNNING);
  }

  @Test
  void sixteen_threads_completing_overlapping_batches_write_each_row_once() throws Exception {
    String task = s.newTask("race-batch-complete");
    List<Instance> claimed = new ArrayList<>();
    for (int k = 0; k < 40; k++) {
      claimed.add(s.claimKey(task, "k-" + k, "w"));
    }
    int[] racer = {0};
    List<Set<Lease>> results =
        Stores.race(
            RACERS,
            () -> {
              int me;
              synchronized (racer) {
                me = racer[0]++;
              }
              // Each racer takes a different, overlapping window of the 40 rows, in its own order.
              List<AttemptEnd> batch = new ArrayList<>();
              for (int k = 0; k < 20; k++) {
                Instance i = claimed.get((me * 3 + k * (me % 2 == 0 ? 1 : -1) + 40) % 40);
                batch.add(
                    new AttemptEnd(
                        new Lease(i.id(), i.attempt()), Outcome.success("by " + me, false, null)));
              }
              return leases.completeAll(batch, "racer-" + me);
            });

    List<Lease> all = results.stream().flatMap(Set::stream).toList();
    assertThat(all).doesNotHaveDuplicates();
    assertThat(all).hasSize(40);
    for (Instance i : claimed) {
      assertThat(operator.find(i.id()).orElseThrow().status()).isEqualTo(SUCCESS);
      assertThat(operator.events(i.id())).filteredOn(e -> e.to() == SUCCESS).hasSize(1);
    }
  }

  @Test
  void a_claim_takes_only_instances_of_a_queue_and_handler_the_worker_serves() {
    tasks("gpu-summarize", "gpu", "summarize");
    tasks("default-noop", "default", "noop");
    tasks("gpu-noop", "gpu", "noop");
    Instance gpuSummarize = s.newPending("gpu-summarize", "2026-11-01");
    Instance defaultNoop = s.newPending("default-noop", "2026-11-01");
    Instance gpuNoop = s.newPending("gpu-noop", "2026-11-01");
    // An instance whose task has no definition row is claimed (and then failed by the worker):
    // no worker could serve it better.
    Instance orphan =
        s.windows
            .create(
                List.of(Tasks.pending("no-definition", "2026-11-01", Duration.ofMinutes(5))), "t")
            .get(0);
    List<Long> all = List.of(gpuSummarize.id(), defaultNoop.id(), gpuNoop.id(), orphan.id());

    List<ClaimedInstance> byDefaultNoop = leases.claimForRun(all, "w-default", NOOP);
    assertThat(byDefaultNoop)
        .extracting(ClaimedInstance::id)
        .containsExactlyInAnyOrder(defaultNoop.id(), orphan.id());

    Serves gpuWithoutSummarize = new Serves(Set.of("gpu"), Set.of("noop", "sleep"));
    assertThat(leases.claimForRun(all, "w-gpu", gpuWithoutSummarize))
        .extracting(ClaimedInstance::id)
        .containsExactly(gpuNoop.id());
    assertThat(operator.find(gpuSummarize.id()).orElseThrow().status()).isEqualTo(PENDING);
    assertThat(leases.claimStates(List.of(gpuSummarize.id())))
        .containsEntry(
            gpuSummarize.id(),
            new LeaseStore.ClaimState("PENDING", 0, null, "gpu", "summarize", null, null));

    Serves none = new Serves(Set.of("gpu"), Set.of());
    assertThat(leases.claimForRun(all, "w-empty", none)).isEmpty();
    assertThat(
            leases.claimForRun(
                all, "w-gpu-2", new Serves(Set.of("default", "gpu"), Set.of("summarize"))))
        .extracting(ClaimedInstance::id)
        .containsExactly(gpuSummarize.id());
  }

  @Test
  void sixteen_workers_of_two_pools_racing_for_mixed_instances_claim_each_once_and_only_their_own()
      throws Exception {
    tasks("race-gpu", "gpu", "summarize");
    tasks("race-cpu", "default", "noop");
    List<Long> ids = new ArrayList<>();
    for (int d = 1; d <= 20; d++) {
      String day = String.format("2026-10-%02d", d);
      ids.add(s.newPending("race-gpu", day).id());
      ids.add(s.newPending("race-cpu", day).id());
    }
    Serves gpu = new Serves(Set.of("gpu"), Set.of("summarize"));
    record Claims(boolean gpu, List<ClaimedInstance> won) {}
    int[] n = {0};
    List<Claims> results =
        Stores.race(
            RACERS,
            () -> {
              int k;
              synchronized (n) {
                k = n[0]++;
              }
              boolean isGpu = k % 2 == 0;
              return new Claims(isGpu, leases.claimForRun(ids, "w" + k, isGpu ? gpu : NOOP));
            });
    List<ClaimedInstance> won = results.stream().flatMap(c -> c.won().stream()).toList();
    assertThat(won).extracting(ClaimedInstance::id).doesNotHaveDuplicates().hasSize(40);
    for (Claims c : results) {
      String expectedTask = c.gpu() ? "race-gpu" : "race-cpu";
      assertThat(c.won()).allSatisfy(i -> assertThat(i.taskId()).isEqualTo(expectedTask));
    }
  }

  private static void tasks(String id, String queue, String handler) {
    s.tasks.applyAll(List.of(Tasks.daily(id).queue(queue).handler(handler).build()));
  }

  @Test
  void an_instance_is_not_claimed_before_its_scheduled_time_by_the_databases_clock() {
    String task = s.newTask("early");
    Instant start = Instant.now().plus(Duration.ofHours(1));
    Instance early =
        s.windows
            .create(
                List.of(
                    NewInstance.pending(
                        task,
                        new Window("later", start, start.plus(Duration.ofHours(1))),
                        start,
                        Origin.SCHEDULE,
                        Duration.ofMinutes(5),
                        0)),
                "a trigger whose clock runs fast")
            .get(0);

    assertThat(leases.claimForRun(List.of(early.id()), "w1", NOOP)).as("not due yet").isEmpty();
    LeaseStore.ClaimState state = leases.claimStates(List.of(early.id())).get(early.id());
    assertThat(state.status()).isEqualTo("PENDING");
    assertThat(state.notDueUntil()).isEqualTo(early.scheduledAt());
    assertThat(state.notDueFor())
        .as("how far ahead of the database's clock, read by the database")
        .isBetween(Duration.ofMinutes(59), Duration.ofHours(1));

    s.db
        .dsl()
        .execute(
            "update task_instance set scheduled_at = now() - interval '1 second' where id = ?",
            early.id());
    assertThat(leases.claimForRun(List.of(early.id()), "w1", NOOP)).as("due now").hasSize(1);
    LeaseStore.ClaimState due = leases.claimStates(List.of(early.id())).get(early.id());
    assertThat(due.notDueUntil()).isNull();
    assertThat(due.notDueFor()).isNull();
  }

  @Test
  void a_claim_ahead_takes_instances_due_within_it_by_the_databases_clock_and_no_later_ones() {
    String task = s.newTask("ahead");
    Instant now =
        s.db.dsl().select(org.jooq.impl.DSL.field("now()", Instant.class)).fetchSingle().value1();
    Instance soon = pendingAt(task, "soon", now.plusMillis(1_500));
    Instance later = pendingAt(task, "later", now.plusSeconds(30));

    assertThat(leases.claimForRun(List.of(soon.id(), later.id()), "w1", NOOP))
        .as("without claim-ahead neither is due")
        .isEmpty();
    List<ClaimedInstance> claimed =
        leases.claimForRun(
            List.of(soon.id(), later.id()), "w1", NOOP, Duration.ofSeconds(5), sent -> {});
    assertThat(claimed).extracting(ClaimedInstance::id).containsExactly(soon.id());
    assertThat(claimed.get(0).scheduledAt())
        .as("the run's fire time, for the worker to start it on")
        .isEqualTo(soon.scheduledAt());
    assertThat(leases.claimStates(List.of(later.id())).get(later.id()).status())
        .isEqualTo("PENDING");
    assertThatThrownBy(
            () ->
                leases.claimForRun(
                    List.of(later.id()), "w1", NOOP, Duration.ofMillis(-1), sent -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ahead must not be negative");
  }

  private static Instance pendingAt(String task, String key, Instant due) {
    return s.windows
        .create(
            List.of(
                NewInstance.pending(
                    task,
                    new Window(key, due, due.plus(Duration.ofHours(1))),
                    due,
                    Origin.SCHEDULE,
                    Duration.ofMinutes(5),
                    0)),
            "test")
        .get(0);
  }
}
