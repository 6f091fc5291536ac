package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.config.Config;
import dev.carillon.devstack.CuttableProxy;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.retry.ImmediateRetry;
import dev.carillon.retry.RetryService;
import dev.carillon.testsupport.Tasks;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18's self-fencing must-show: a worker cut off from PostgreSQL while running (its
 * connections go through a {@link CuttableProxy}, which the test cuts like a network partition)
 * stops its run before the lease can expire; the real retry service times the attempt out and the
 * retry runs on the other worker, alone: in the ledger of real executions the two attempts' running
 * intervals do not overlap.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SelfFencingTest {
  private static final Duration LEASE = Duration.ofSeconds(6);

  private WorkerTestKit kit;
  private CuttableProxy proxy;
  private RetryService retry;

  @BeforeEach
  void setUp() {
    kit = new WorkerTestKit("worker_fence", 2);
    proxy = CuttableProxy.start("localhost", kit.stack.postgresPort());
  }

  @AfterEach
  void tearDown() {
    proxy.restore();
    if (retry != null) {
      retry.close();
    }
    kit.close();
    proxy.close();
  }

  @Test
  void a_worker_cut_off_from_the_database_stops_its_run_before_the_retry_starts_elsewhere() {
    kit.tasks.applyAll(
        List.of(
            Tasks.daily("fenced")
                .handler("ledger-probe")
                .retry(new ImmediateRetry(1))
                .timeout(LEASE)
                .build()));
    // Worker A reaches PostgreSQL only through the proxy; a socket timeout ends a statement the
    // partition swallowed (statement timeouts are the database settings' business).
    Map<String, String> viaProxy = new HashMap<>();
    viaProxy.put(
        "db.url",
        kit.dbUrl.replace(":" + kit.stack.postgresPort() + "/", ":" + proxy.port() + "/")
            + "?socketTimeout=3&connectTimeout=2");
    viaProxy.put("db.connection-timeout", "1s");
    viaProxy.put("worker.fence-margin", "2s");
    viaProxy.put("worker.stop-grace", "1s");
    WorkerService a = kit.worker("fence-a", viaProxy);
    Instance instance = kit.instance("fenced", "w1", LEASE);
    kit.publish(instance);
    await("worker A runs attempt 1")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(LedgerProbe.started("fenced")).hasSize(1));
    assertThat(kit.find(instance.id()).workerId()).isEqualTo("fence-a");

    WorkerService b = kit.worker("fence-b", Map.of());
    Map<String, String> retryConfig = new HashMap<>(kit.config("retry-1", Map.of()));
    retryConfig.put("zk.connect", kit.stack.zkConnect());
    retryConfig.put("retry.instances-topic", kit.topic);
    retryConfig.put("retry.config-topic", kit.newCompactedTopic("config"));
    retryConfig.put("retry.scan-interval", "200ms");
    retryConfig.put("retry.rate.per-task-per-second", "1000");
    retry = RetryService.start(Config.of(retryConfig), Clock.systemUTC());

    proxy.cut();

    await("attempt 1 is stopped on A and the retry succeeds on B")
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              Instance now = kit.find(instance.id());
              assertThat(now.status()).isEqualTo(InstanceStatus.SUCCESS);
              assertThat(LedgerProbe.ended("fenced")).hasSize(2);
              // Counted after the end's write commits, so awaited too (CI read 0 just after it).
              assertThat(b.metrics().succeeded.count()).isEqualTo(1.0);
            });
    List<LedgerProbe.Entry> ledger = LedgerProbe.ended("fenced");
    LedgerProbe.Entry first =
        ledger.stream().filter(e -> e.attempt() == 1).findFirst().orElseThrow();
    LedgerProbe.Entry second =
        ledger.stream().filter(e -> e.attempt() == 2).findFirst().orElseThrow();
    assertThat(first.end())
        .as(
            "attempt 1 ran %s..%s, attempt 2 ran %s..%s",
            first.start(), first.end(), second.start(), second.end())
        .isBefore(second.start());
    assertThat(a.metrics().fenced.count()).isEqualTo(1.0);
    assertThat(b.metrics().succeeded.count()).isEqualTo(1.0);
    assertThat(kit.find(instance.id()).workerId()).isEqualTo("fence-b");
    List<InstanceEvent> events = kit.instances.events(instance.id());
    assertThat(events)
        .filteredOn(e -> e.to() == InstanceStatus.TIMEOUT)
        .as("the retry service timed attempt 1 out: its lease expired by the database's clock")
        .hasSize(1);
    assertThat(events)
        .filteredOn(e -> e.to() == InstanceStatus.RUNNING)
        .extracting(InstanceEvent::attempt, InstanceEvent::actor)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, "fence-a"),
            org.assertj.core.groups.Tuple.tuple(2, "fence-b"));
  }
}
