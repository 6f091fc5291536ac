package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class GracefulShutdownTest {
  static WorkerTestKit kit;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_shutdown", 2);
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void shutdown_drains_what_finishes_in_time_and_releases_the_rest_to_another_worker() {
    // Both runs wait for gates the test opens: "long" stays in progress through the whole drain
    // (its gate opens only after A has closed), so it cannot finish in time by luck.
    kit.task("quick", "counting", "{\"gate\":\"drain-quick\"}");
    kit.task("long", "counting", "{\"gate\":\"drain-long\"}");
    Instance quick = kit.instance("quick", "w1", Duration.ofSeconds(30));
    Instance slow = kit.instance("long", "w1", Duration.ofSeconds(30));
    WorkerService a =
        kit.worker("drain-a", Map.of("worker.concurrency", "2", "worker.drain-timeout", "5s"));
    kit.publish(quick, slow);
    await("both runs to start on drain-a")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(CountingAgent.probe("quick").current).hasValue(1);
              assertThat(CountingAgent.probe("long").current).hasValue(1);
            });
    WorkerService b = kit.worker("drain-b", Map.of());

    // "quick" may end now, before or during the drain; the drain waits up to 5 s for its end write.
    CountingAgent.gate("drain-quick").countDown();
    a.close();
    CountingAgent.gate("drain-long").countDown();

    assertThat(kit.find(quick.id()).status()).as("drained on A").isEqualTo(InstanceStatus.SUCCESS);
    assertThat(kit.find(quick.id()).workerId()).isEqualTo("drain-a");
    assertThat(a.metrics().released.count()).isEqualTo(1);
    assertThat(CountingAgent.probe("long").sawCancellation).hasValue(1);

    await("the released run to succeed on drain-b")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(kit.find(slow.id()).status()).isEqualTo(InstanceStatus.SUCCESS);
              // Counted once the end write returns, just after the row shows it.
              assertThat(b.metrics().succeeded.count()).isEqualTo(1);
            });
    Instance done = kit.find(slow.id());
    assertThat(done.workerId()).isEqualTo("drain-b");
    assertThat(done.attempt()).isEqualTo(2);
    assertThat(done.retryCount()).as("a release consumes no retry").isZero();
    assertThat(kit.instances.events(slow.id()))
        .anySatisfy(
            e -> {
              assertThat(e.kind()).isEqualTo(InstanceEvent.Kind.TRANSITION);
              assertThat(e.from()).isEqualTo(InstanceStatus.RUNNING);
              assertThat(e.to()).isEqualTo(InstanceStatus.PENDING);
              assertThat(e.reason())
                  .contains("drain-a shut down")
                  .contains("without consuming a retry");
            });
    assertThat(kit.instances.countByStatus(null)).doesNotContainKey(InstanceStatus.RUNNING);
  }
}
