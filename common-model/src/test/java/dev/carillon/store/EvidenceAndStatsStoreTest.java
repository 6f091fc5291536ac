package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.lease.TimeoutAdvice;
import dev.carillon.store.InstanceStatsStore.InstanceStats;
import dev.carillon.testsupport.RecordedRuns;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The reads behind suggest-timeout and the instance gauges, on a real database. */
class EvidenceAndStatsStoreTest {
  private static Stores s;

  @BeforeAll
  static void open() {
    s = Stores.fresh("store_evidence");
  }

  @AfterAll
  static void close() {
    s.close();
  }

  @Test
  void suggest_timeout_of_200_runs_of_1_to_200_seconds_is_198s_times_one_and_a_half() {
    String task = s.newTask("evidence-200");
    List<Duration> durations = new ArrayList<>(RecordedRuns.seconds(200));
    Collections.shuffle(durations, new java.util.Random(7));
    RecordedRuns.record(s.db, task, durations);
    // A failure of another length is not evidence.
    Instance failed = s.claimKey(task, "failed-one", "w");
    s.leases.complete(new Lease(failed.id(), 1), Outcome.failure("boom", false), "w");

    RunEvidenceStore store = new RunEvidenceStore(s.db.dsl());
    assertThat(store.recentSuccesses(task, 1000)).hasSize(200);
    TimeoutAdvice advice = store.advice(task, 1000).orElseThrow();
    assertThat(advice.sampleSize()).isEqualTo(200);
    assertThat(advice.p99()).isEqualTo(Duration.ofSeconds(198));
    assertThat(advice.suggested()).isEqualTo(Duration.ofSeconds(297));
  }

  @Test
  void the_window_takes_the_latest_successes_first() {
    String task = s.newTask("evidence-window");
    RecordedRuns.record(s.db, task, RecordedRuns.seconds(50));
    // The 50th run finished last and took 50 s: the newest 10 are 50, 49, ... 41 s.
    List<Duration> newest = new ArrayList<>(RecordedRuns.seconds(50).subList(40, 50));
    Collections.reverse(newest);
    assertThat(new RunEvidenceStore(s.db.dsl()).recentSuccesses(task, 10))
        .containsExactlyElementsOf(newest);
    assertThat(new RunEvidenceStore(s.db.dsl()).advice("no-such-task", 10)).isEmpty();
  }

  @Test
  void stats_count_live_and_dead_instances_and_age_the_oldest_waiting_ones() {
    InstanceStats before = new InstanceStatsStore(s.db.dsl()).read();
    String task = s.newTask("stats");
    Instance pending = s.newPending(task, "2026-11-01");
    Instance published = s.newPending(task, "2026-11-02");
    s.windows.markDispatched(List.of(published.id()));
    s.claimOne(task, "2026-11-03", "w");
    Instance dead = s.claimOne(task, "2026-11-04", "w");
    s.leases.complete(new Lease(dead.id(), 1), Outcome.failure("x", true), "w");
    s.retries.markDead(
        s.operator.find(dead.id()).orElseThrow(),
        1L,
        "retry",
        "non-retryable failure",
        true,
        s.retryFence);
    Instance waiting = s.claimOne(task, "2026-11-05", "w");
    s.leases.complete(new Lease(waiting.id(), 1), Outcome.failure("x", false), "w");
    s.retries.scheduleRetry(
        s.operator.find(waiting.id()).orElseThrow(),
        Instant.parse("2000-01-01T00:00:00Z"),
        1L,
        "retry",
        "retry 1",
        s.retryFence);
    // Age the rows on the database clock: PENDING for an hour, the retry due for ten minutes.
    s.db
        .dsl()
        .update(TASK_INSTANCE)
        .set(TASK_INSTANCE.UPDATED_AT, Instant.now().minus(Duration.ofHours(1)))
        .where(TASK_INSTANCE.ID.eq(pending.id()))
        .execute();
    s.db
        .dsl()
        .update(TASK_INSTANCE)
        .set(TASK_INSTANCE.NEXT_ATTEMPT_AT, Instant.now().minus(Duration.ofMinutes(10)))
        .where(TASK_INSTANCE.ID.eq(waiting.id()))
        .execute();

    InstanceStats after = new InstanceStatsStore(s.db.dsl()).read();
    assertThat(delta(after, before, InstanceStatus.PENDING)).isEqualTo(2);
    assertThat(delta(after, before, InstanceStatus.RUNNING)).isEqualTo(1);
    assertThat(delta(after, before, InstanceStatus.DEAD)).isEqualTo(1);
    assertThat(delta(after, before, InstanceStatus.RETRY_WAIT)).isEqualTo(1);
    assertThat(after.oldestPending().orElseThrow())
        .isBetween(Duration.ofMinutes(59), Duration.ofMinutes(61));
    assertThat(after.oldestUndispatched().orElseThrow())
        .isBetween(Duration.ofMinutes(59), Duration.ofMinutes(61));
    assertThat(after.oldestOverdueRetry().orElseThrow())
        .isBetween(Duration.ofMinutes(9), Duration.ofMinutes(11));
  }

  private static long delta(InstanceStats after, InstanceStats before, InstanceStatus s) {
    return after.counts().get(s) - before.counts().get(s);
  }
}
