package dev.carillon.store;

import static dev.carillon.model.instance.InstanceStatus.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
  void undispatched_pending_instances_are_found_until_stamped() {
    String task = newTask("dispatch");
    Instance a = newPending(task, "2026-11-01");
    Instance b = newPending(task, "2026-11-02");
    assertThat(instances.undispatched(Duration.ofMinutes(5), 1000))
        .extracting(Instance::id)
        .contains(a.id(), b.id());
    assertThat(instances.markDispatched(List.of(a.id()))).isEqualTo(1);
    assertThat(instances.undispatched(Duration.ofMinutes(5), 1000))
        .extracting(Instance::id)
        .contains(b.id())
        .doesNotContain(a.id());
    db.dsl()
        .execute(
            "update task_instance set dispatched_at = now() - interval '10 minutes' where id = ?",
            a.id());
    assertThat(instances.undispatched(Duration.ofMinutes(5), 1000))
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
}
