package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class ExactlyOnceClaimTest {
  static WorkerTestKit kit;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_once", 3);
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void one_instance_published_five_times_to_three_workers_runs_once() {
    kit.task("once", "counting", "{\"duration\":\"300ms\"}");
    Instance i = kit.instance("once", "w1", Duration.ofSeconds(30));
    List<WorkerService> workers =
        List.of(
            kit.worker("once-1", Map.of()),
            kit.worker("once-2", Map.of()),
            kit.worker("once-3", Map.of()));
    byte[] value =
        InstanceMessageCodec.encode(InstanceMessage.of(i.id(), "once", "w1", Instant.now()));
    // Five copies over all three partitions, so that every worker may receive one.
    kit.sendRaw(List.of(0, 1, 2, 0, 1), Collections.nCopies(5, value));

    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(kit.find(i.id()).status()).isEqualTo(InstanceStatus.SUCCESS);
              assertThat(sum(workers, m -> m.lostClaims.count())).isGreaterThanOrEqualTo(4);
            });
    assertThat(CountingAgent.probe("once").executions).hasValue(1);
    assertThat(sum(workers, m -> m.claimed.count())).isEqualTo(1);
    assertThat(kit.find(i.id()).attempt()).isEqualTo(1);
  }

  private static double sum(
      List<WorkerService> workers, java.util.function.ToDoubleFunction<WorkerMetrics> f) {
    return workers.stream().mapToDouble(w -> f.applyAsDouble(w.metrics())).sum();
  }
}
