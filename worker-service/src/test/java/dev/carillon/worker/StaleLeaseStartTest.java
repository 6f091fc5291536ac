package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A claimed instance whose lease may have run out while it waited for a run thread is not started:
 * another worker may already run its retry. Here the lease cannot be renewed in time (heartbeats
 * every 10 s for a 400 ms lease), as when the worker process was paused past its leases; the fault
 * suite saw a worker resumed after a freeze start such a run.
 */
@Timeout(120)
class StaleLeaseStartTest {
  static WorkerTestKit kit;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_stale_start", 1);
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void a_run_whose_lease_ran_out_while_it_waited_is_not_started() {
    kit.task("holder", "counting", "{\"duration\":\"1500ms\"}");
    kit.task("stale", "counting", "{\"duration\":\"10ms\"}");
    Instance holder = kit.instance("holder", "w0", Duration.ofSeconds(60));
    Instance stale = kit.instance("stale", "w0", Duration.ofMillis(400));
    kit.publish(holder);
    kit.publish(stale);
    try (WorkerService worker =
        kit.worker(
            "stale-1",
            Map.of(
                "worker.concurrency", "1",
                "worker.prefetch", "1",
                "worker.heartbeat-interval", "10s"))) {
      // Both claimed at once (one slot, one waiting); the holder's 1.5 s outlasts the 400 ms lease.
      await("the holder run to succeed")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(kit.find(holder.id()).status()).isEqualTo(InstanceStatus.SUCCESS));
      await("the stale instance to count as a lost lease")
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(worker.metrics().leasesLost.count()).isEqualTo(1.0));

      assertThat(CountingAgent.probe("holder").executions).hasValue(1);
      assertThat(CountingAgent.probe("stale").executions).as("never started").hasValue(0);
      // Nothing was written for it: the row keeps the attempt this worker claimed, for the retry
      // service to time out.
      Instance row = kit.find(stale.id());
      assertThat(row.status()).isEqualTo(InstanceStatus.RUNNING);
      assertThat(row.attempt()).isEqualTo(1);
      assertThat(row.workerId()).isEqualTo("stale-1");
    }
  }
}
