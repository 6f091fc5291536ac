package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class ConcurrencyLimitTest {
  static WorkerTestKit kit;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_conc", 1);
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void concurrency_two_never_runs_more_than_two_and_finishes_all_twenty() {
    kit.task("conc", "counting", "{\"duration\":\"250ms\"}");
    Instance[] all = new Instance[20];
    for (int n = 0; n < all.length; n++) {
      all[n] = kit.instance("conc", "w" + n, Duration.ofSeconds(30));
    }
    // Published before the worker starts, so its first polls return more records than slots.
    kit.publish(all);
    WorkerService worker = kit.worker("conc-1", Map.of("worker.concurrency", "2"));

    AtomicInteger sampledMax = new AtomicInteger();
    await("all 20 runs to succeed")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(25))
        .untilAsserted(
            () -> {
              sampledMax.accumulateAndGet(kit.runningOn("conc-1"), Math::max);
              assertThat(kit.instances.countByStatus("conc"))
                  .containsEntry(InstanceStatus.SUCCESS, 20);
            });

    CountingAgent.Probe probe = CountingAgent.probe("conc");
    assertThat(probe.max).as("most runs at once in the agent").hasValue(2);
    assertThat(sampledMax.get()).as("most RUNNING rows of this worker seen").isBetween(1, 2);
    assertThat(probe.executions).hasValue(20);
    assertThat(worker.metrics().lostClaims.count()).isZero();
    await("the offsets of all 20 records to be committed")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(kit.committed()).containsEntry(0, 20L));
  }
}
