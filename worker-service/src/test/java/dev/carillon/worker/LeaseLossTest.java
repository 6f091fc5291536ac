package dev.carillon.worker;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
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

@Timeout(120)
class LeaseLossTest {
  static WorkerTestKit kit;
  static WorkerService worker;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_lease", 1);
    worker = kit.worker("lease-1", Map.of("worker.heartbeat-interval", "100ms"));
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void a_stolen_lease_cancels_the_run_and_its_late_result_changes_nothing() {
    // The agent ignores the interrupt and, once the test opens its gate, returns a result anyway:
    // the worker must discard it, because the instance now carries a newer attempt.
    kit.task(
        "stolen",
        "counting",
        "{\"gate\":\"stolen\",\"ignoreInterrupts\":true,\"returnAnyway\":true}");
    Instance i = kit.instance("stolen", "w1", Duration.ofSeconds(30));
    kit.publish(i);
    CountingAgent.Probe probe = CountingAgent.probe("stolen");
    await("the stolen run to start")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(probe.current).hasValue(1));
    await("a first lease renewal")
        .atMost(Duration.ofSeconds(5))
        .until(() -> worker.metrics().leaseRenewals.count() >= 1);

    // Another claimant took over: the fencing token moved on.
    kit.db
        .dsl()
        .update(TASK_INSTANCE)
        .set(TASK_INSTANCE.ATTEMPT, TASK_INSTANCE.ATTEMPT.plus(1))
        .where(TASK_INSTANCE.ID.eq(i.id()))
        .execute();

    // The run is still blocked on its gate here, whatever the machine's speed.
    await("the lost lease to be noticed and the run cancelled")
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> {
              assertThat(worker.metrics().leasesLost.count()).isEqualTo(1.0);
              assertThat(probe.lastContext.get().isCancelled()).isTrue();
            });
    assertThat(probe.finished).as("the run is still blocked on its gate").hasValue(0);
    CountingAgent.gate("stolen").countDown();
    await("the cancelled run to return its stale result")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(probe.finished).hasValue(1));
    await("the stale result to be discarded")
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(worker.metrics().discarded.count()).isEqualTo(1.0));

    assertThat(probe.sawCancellation).hasValue(1);
    Instance after = kit.find(i.id());
    assertThat(after.status()).isEqualTo(InstanceStatus.RUNNING);
    assertThat(after.attempt()).isEqualTo(2);
    assertThat(after.resultSummary()).isNull();
    assertThat(after.failReason()).isNull();
    assertThat(worker.metrics().succeeded.count()).isZero();
    assertThat(kit.instances.events(i.id()))
        .noneMatch(e -> e.to() == InstanceStatus.SUCCESS || e.to() == InstanceStatus.FAILED);
  }
}
