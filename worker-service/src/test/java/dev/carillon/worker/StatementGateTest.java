package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 24's virtual-thread defect: a worker with many more run slots than connections must not
 * starve its own pool. Thirty runs start at once on a worker with a pool of 4 and a 1 s {@code
 * db.connection-timeout}, and their first statement (the last checkpoint) is held up by a lock the
 * test takes on the checkpoint table for longer than that timeout. Four runs wait on the lock (the
 * gate is as wide as the pool), the other 26 wait in the gate's line instead of timing out in the
 * pool's, and once the lock goes every run succeeds. Without the gate, 26 of them failed with
 * "Connection is not available, request timed out after 1000ms".
 */
@Timeout(180)
class StatementGateTest {
  private static final int RUNS = 30;
  private static WorkerTestKit kit;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_gate", 1);
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void runs_beyond_the_pool_wait_their_turn_instead_of_failing_at_the_pool_timeout()
      throws Exception {
    kit.task("gate", "resuming", "{}");
    Instance[] all = new Instance[RUNS];
    for (int n = 0; n < RUNS; n++) {
      all[n] = kit.instance("gate", "g" + n, Duration.ofMinutes(2));
    }
    try (Connection lock = kit.db.dataSource().getConnection()) {
      lock.setAutoCommit(false);
      DSL.using(lock).execute("LOCK TABLE instance_checkpoint IN ACCESS EXCLUSIVE MODE");

      kit.publish(all);
      WorkerService worker =
          kit.worker(
              "gate-1",
              Map.of(
                  "worker.concurrency", Integer.toString(RUNS),
                  "db.pool-size", "4",
                  "db.connection-timeout", "1s"));

      await("four statements blocked by the lock, the other runs in the gate's line")
          .atMost(Duration.ofSeconds(60))
          .until(() -> waiting(worker) == RUNS - 4 && blockedLongerThan(Duration.ZERO) == 4);
      // Longer than the pool's connection timeout: a run waiting for a connection would fail now.
      await("the blocked statements to have waited 2 s, twice the pool's timeout")
          .atMost(Duration.ofSeconds(30))
          .until(() -> blockedLongerThan(Duration.ofSeconds(2)) == 4);
      assertThat(waiting(worker)).isEqualTo(RUNS - 4);
      assertThat(worker.metrics().failed.count()).isZero();
      lock.rollback();

      await("every run to succeed")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(kit.instances.countByStatus("gate"))
                      .containsEntry(InstanceStatus.SUCCESS, RUNS));
      assertThat(worker.metrics().failed.count()).isZero();
      assertThat(waiting(worker)).isZero();
      assertThat(ResumingAgent.probe("gate").resumedFrom).hasSize(1).containsEntry(1, "none");
    }
  }

  private static int waiting(WorkerService worker) {
    var gauge =
        worker.registry().find("carillon.worker.run-statements.waiting").tag("worker", "gate-1");
    return gauge.gauge() == null ? -1 : (int) gauge.gauge().value();
  }

  /**
   * Sessions of the test's database waiting for a lock for longer than {@code d}. Read on a
   * connection of its own: a transaction sees one snapshot of {@code pg_stat_activity}.
   */
  private static int blockedLongerThan(Duration d) {
    Object count =
        kit.db
            .dsl()
            .fetchValue(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND wait_event_type = 'Lock'"
                    + " AND clock_timestamp() - query_start >= make_interval(secs => ?)",
                d.toMillis() / 1000.0);
    return ((Number) count).intValue();
  }
}
