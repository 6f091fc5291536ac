package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.devstack.DevStack;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Found by the fault-injection suite: a run that finishes while PostgreSQL is restarting must still
 * get its result recorded, or the instance times out and the finished work runs twice.
 */
@Timeout(120)
class DatabaseOutageTest {
  static WorkerTestKit kit;
  static WorkerService worker;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_outage", 1);
    // A short connection timeout: while the database is down, the end write fails fast (the
    // production default of 10s would only make this test slow) and must be tried again.
    worker =
        kit.worker(
            "outage-1",
            Map.of("worker.heartbeat-interval", "200ms", "db.connection-timeout", "500ms"));
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void a_result_finished_during_a_database_outage_is_recorded_when_it_returns() {
    kit.task("outage", "counting", "{\"gate\":\"outage\"}");
    Instance i = kit.instance("outage", "w1", Duration.ofSeconds(30));
    kit.publish(i);
    CountingAgent.Probe probe = CountingAgent.probe("outage");
    await("the run to start")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(probe.current).hasValue(1));

    DevStack stack = DevStack.shared();
    stack.stopPostgres();
    try {
      // The run ends while the database is down (its gate opens only now): the first write fails
      // and is tried again.
      CountingAgent.gate("outage").countDown();
      await("the run to end during the outage")
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(probe.finished).hasValue(1));
      await("a failed end write to be retried")
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(worker.metrics().endWriteRetries.count()).isGreaterThanOrEqualTo(1));
    } finally {
      stack.startPostgres();
    }

    await("the end to be recorded once the database is back")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(kit.find(i.id()).status()).isEqualTo(InstanceStatus.SUCCESS);
              // Counted once the end write returns, just after the row shows it.
              assertThat(worker.metrics().succeeded.count()).isEqualTo(1.0);
            });
    Instance done = kit.find(i.id());
    assertThat(done.attempt()).isEqualTo(1);
    assertThat(probe.executions).hasValue(1);
    assertThat(kit.instances.events(i.id()))
        .filteredOn(e -> e.to() == InstanceStatus.SUCCESS)
        .singleElement()
        .extracting(InstanceEvent::attempt)
        .isEqualTo(1);
  }
}
