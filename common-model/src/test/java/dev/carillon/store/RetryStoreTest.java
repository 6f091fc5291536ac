package dev.carillon.store;

import static dev.carillon.model.instance.InstanceStatus.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The retry service's writes: expired leases, retry decisions, due retries and stranded PENDING
 * instances, each moved once however many scanners race.
 */
class RetryStoreTest {
  private static final Instant LONG_AGO = Instant.parse("2000-01-01T00:00:00Z");
  private static Stores s;
  private static RetryStore retries;
  private static OperatorStore operator;

  @BeforeAll
  static void open() {
    s = Stores.fresh("store_retries");
    retries = s.retries;
    operator = s.operator;
  }

  @AfterAll
  static void close() {
    s.close();
  }

  @Test
  void every_transition_leaves_an_event_row() {
    String task = s.newTask("history");
    Instance i = s.claimOne(task, "2026-11-29", "w1");
    assertThat(s.leases.complete(new Lease(i.id(), 1), Outcome.failure("boom", false), "w1"))
        .isTrue();
    Instance failed = operator.find(i.id()).orElseThrow();
    assertThat(retries.awaitingDecision(100)).extracting(Instance::id).contains(i.id());
    assertThat(retries.scheduleRetry(failed, LONG_AGO, 1L, "retry", "retry 1 of 3", s.retryFence))
        .isTrue();
    assertThat(retries.promoteDueRetries(100, "retry", s.retryFence))
        .extracting(Instance::id)
        .contains(i.id());
    Instance again = s.leases.claim(List.of(i.id()), "w2").get(0);
    assertThat(again.attempt()).isEqualTo(2);
    assertThat(again.retryCount()).isEqualTo(1);
    assertThat(
            s.leases.complete(
                new Lease(i.id(), 2), Outcome.success("done", false, "file:///x"), "w2"))
        .isTrue();

    List<InstanceEvent> events = operator.events(i.id());
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
    Instance done = operator.find(i.id()).orElseThrow();
    assertThat(done.resultUri()).isEqualTo("file:///x");
    assertThat(done.finishedAt()).isNotNull();
    assertThat(done.leaseUntil()).isNull();
  }

  @Test
  void expired_leases_become_timeout_by_the_database_clock() {
    String task = s.newTask("expire");
    Instance running = s.claimOne(task, "2026-11-29", "w1");
    Instance fresh = s.claimOne(task, "2026-11-30", "w1");
    s.db
        .dsl()
        .execute(
            "update task_instance set lease_until = now() - interval '1 second' where id = ?",
            running.id());
    List<Instance> expired = retries.expireLeases(100, "retry", s.retryFence);
    assertThat(expired).extracting(Instance::id).containsExactly(running.id());
    assertThat(operator.find(running.id()).orElseThrow().status()).isEqualTo(TIMEOUT);
    assertThat(operator.find(fresh.id()).orElseThrow().status()).isEqualTo(RUNNING);
    // A zombie that wakes up after the timeout cannot write.
    assertThat(
            s.leases.complete(
                new Lease(running.id(), 1), Outcome.success("late", false, null), "w1"))
        .isFalse();
  }

  @Test
  void two_scanners_expiring_at_once_move_each_row_once() throws Exception {
    String task = s.newTask("expire-race");
    List<Long> ids = new ArrayList<>();
    for (int d = 1; d <= 40; d++) {
      ids.add(s.claimKey(task, "k-" + d, "w").id());
    }
    s.db
        .dsl()
        .execute(
            "update task_instance set lease_until = now() - interval '1 second' where task_id = ?",
            task);
    List<List<Instance>> results =
        Stores.race(4, () -> retries.expireLeases(15, "retry", s.retryFence));
    List<Long> moved = results.stream().flatMap(List::stream).map(Instance::id).toList();
    assertThat(moved).doesNotHaveDuplicates();
    List<Long> rest =
        retries.expireLeases(100, "retry", s.retryFence).stream().map(Instance::id).toList();
    List<Long> all = new ArrayList<>(moved);
    all.addAll(rest);
    assertThat(new HashSet<>(all)).containsExactlyInAnyOrderElementsOf(ids);
    assertThat(operator.countByStatus(task)).containsEntry(TIMEOUT, 40);
  }

  @Test
  void a_bulk_move_moves_no_more_than_its_limit() {
    String task = s.newTask("bulk-limit");
    for (int k = 0; k < 30; k++) {
      Instance claimed = s.claimKey(task, "k-" + k, "w");
      s.leases.complete(new Lease(claimed.id(), 1), Outcome.failure("boom", false), "w");
      retries.scheduleRetry(
          operator.find(claimed.id()).orElseThrow(), LONG_AGO, 1L, "retry", "r", s.retryFence);
    }
    assertThat(retries.countDueRetries()).isGreaterThanOrEqualTo(30);
    assertThat(retries.promoteDueRetries(7, "retry", s.retryFence)).hasSize(7);
    assertThat(operator.countByStatus(task))
        .containsEntry(PENDING, 7)
        .containsEntry(RETRY_WAIT, 23);
  }

  @Test
  void a_dead_instance_keeps_its_reason_and_a_stale_decision_writes_nothing() {
    String task = s.newTask("dead");
    Instance claimed = s.claimOne(task, "2026-11-29", "w1");
    assertThat(s.leases.complete(new Lease(claimed.id(), 1), Outcome.failure("boom", true), "w1"))
        .isTrue();
    Instance failed = operator.find(claimed.id()).orElseThrow();

    assertThat(retries.markDead(failed, 7L, "retry", "non-retryable: boom", false, s.retryFence))
        .isTrue();
    assertThat(retries.scheduleRetry(failed, LONG_AGO, 7L, "retry", "late", s.retryFence))
        .isFalse();

    Instance dead = operator.find(claimed.id()).orElseThrow();
    assertThat(dead.status()).isEqualTo(DEAD);
    assertThat(dead.policyVersion()).isEqualTo(7L);
    assertThat(dead.failReason()).isEqualTo("non-retryable: boom");
    assertThat(dead.finishedAt()).isNotNull();
    assertThat(dead.nextAttemptAt()).isNull();
  }

  @Test
  void a_stranded_instance_is_claimed_for_publishing_once_and_unclaimed_when_kafka_refused() {
    String task = s.newTask("stranded");
    Instance old = s.newPending(task, "2026-11-01");
    Instance young = s.newPending(task, "2026-11-02");
    s.db
        .dsl()
        .execute(
            "update task_instance set created_at = now() - interval '10 minutes' where id = ?",
            old.id());
    Duration undispatchedAfter = Duration.ofMinutes(5);
    Duration redispatchAfter = Duration.ofMinutes(5);

    List<Instance> found = retries.stranded(undispatchedAfter, redispatchAfter, 1000);
    assertThat(found).extracting(Instance::id).contains(old.id()).doesNotContain(young.id());
    List<Long> ids = List.of(old.id(), young.id());
    assertThat(retries.claimForDispatch(ids, undispatchedAfter, redispatchAfter, s.retryFence))
        .extracting(Instance::id)
        .containsExactly(old.id());
    assertThat(retries.claimForDispatch(ids, undispatchedAfter, redispatchAfter, s.retryFence))
        .as("claimed once per round")
        .isEmpty();

    assertThat(retries.unmarkDispatched(List.of(old.id()), s.retryFence)).isEqualTo(1);
    assertThat(retries.stranded(undispatchedAfter, redispatchAfter, 1000))
        .extracting(Instance::id)
        .contains(old.id());
    assertThat(retries.markDispatched(List.of(old.id()), s.retryFence)).isEqualTo(1);
    assertThat(retries.stranded(undispatchedAfter, redispatchAfter, 1000))
        .extracting(Instance::id)
        .doesNotContain(old.id());
  }

  @Test
  void an_instance_no_live_worker_serves_is_published_once_and_not_again_until_one_does() {
    s.tasks.applyAll(
        List.of(Tasks.daily("waits-for-gpu").queue("gpu").handler("summarize").build()));
    Instance waiting = s.newPending("waits-for-gpu", "2026-11-01");
    s.db
        .dsl()
        .execute(
            "update task_instance set created_at = now() - interval '10 minutes' where id = ?",
            waiting.id());
    Duration after = Duration.ofMinutes(5);
    // Never published: published once, whoever serves it.
    assertThat(retries.stranded(after, after, 1000))
        .extracting(Instance::id)
        .contains(waiting.id());
    assertThat(retries.claimForDispatch(List.of(waiting.id()), after, after, s.retryFence))
        .hasSize(1);
    s.db
        .dsl()
        .execute(
            "update task_instance set dispatched_at = now() - interval '10 minutes' where id = ?",
            waiting.id());

    assertThat(retries.stranded(after, after, 1000))
        .as("published long ago, but no worker serves queue gpu with handler summarize")
        .extracting(Instance::id)
        .doesNotContain(waiting.id());

    PresenceStore presence = new PresenceStore(s.db.dsl());
    presence.register("w-gpu-other", Set.of("gpu"), Set.of("noop"), true, 4);
    presence.register("w-default", Set.of("default"), Set.of("summarize"), true, 4);
    presence.register("w-gpu-stuck", Set.of("gpu"), Set.of("summarize"), false, 0);
    assertThat(retries.stranded(after, after, 1000))
        .as("only a worker that is not ready serves it")
        .extracting(Instance::id)
        .doesNotContain(waiting.id());

    presence.register("w-gpu", Set.of("gpu"), Set.of("summarize", "noop"), true, 4);
    assertThat(retries.stranded(after, after, 1000))
        .extracting(Instance::id)
        .contains(waiting.id());

    s.db
        .dsl()
        .execute(
            "update worker_presence set last_seen = now() - interval '31 seconds'"
                + " where worker_id = 'w-gpu'");
    assertThat(retries.stranded(after, after, 1000))
        .as("the serving worker's presence expired")
        .extracting(Instance::id)
        .doesNotContain(waiting.id());
    presence.remove("w-gpu-other");
    presence.remove("w-default");
    presence.remove("w-gpu-stuck");
    presence.remove("w-gpu");
  }
}
