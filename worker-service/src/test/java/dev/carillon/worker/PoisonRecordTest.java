package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class PoisonRecordTest {
  static WorkerTestKit kit;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_poison", 1);
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void poison_records_are_skipped_and_the_record_after_them_runs() {
    kit.task("after-poison", "counting", "{}");
    Instance valid = kit.instance("after-poison", "w1", Duration.ofSeconds(30));
    kit.sendRaw(
        List.of(0, 0, 0, 0, 0),
        List.of(
            "not json at all".getBytes(StandardCharsets.UTF_8),
            "{\"v\":2,\"id\":1,\"task\":\"x\",\"window\":\"w\",\"at\":\"2026-01-01T00:00:00Z\"}"
                .getBytes(StandardCharsets.UTF_8),
            "{\"v\":1}".getBytes(StandardCharsets.UTF_8),
            InstanceMessageCodec.encode(
                InstanceMessage.of(987_654_321L, "ghost", "w", Instant.now())),
            InstanceMessageCodec.encode(
                InstanceMessage.of(valid.id(), "after-poison", "w1", Instant.now()))));
    WorkerService worker = kit.worker("poison-1", Map.of());

    // The worker counts a success once its end write returns, just after the row shows it.
    await("the valid instance behind the poison records to succeed")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(kit.find(valid.id()).status()).isEqualTo(InstanceStatus.SUCCESS);
              assertThat(worker.metrics().succeeded.count()).isEqualTo(1);
            });
    assertThat(worker.metrics().malformed.count()).isEqualTo(3);
    assertThat(worker.metrics().lostClaims.count()).as("the unknown id").isEqualTo(1);
    await("the offsets past the poison records to be committed")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(kit.committed()).containsEntry(0, 5L));
  }
}
