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
    try (WorkerService w1 = kit.worker("once-1", Map.of());
        WorkerService w2 = kit.worker("once-2", Map.of());
        WorkerService w3 = kit.worker("once-3", Map.of())) {
      List<WorkerService> workers = List.of(w1, w2, w3);
      byte[] value =
          InstanceMessageCodec.encode(InstanceMessage.of(i.id(), "once", "w1", Instant.now()));
      // Five copies over all three partitions, so that every worker may receive one.
      kit.sendRaw(List.of(0, 1, 2, 0, 1), Collections.nCopies(5, value));

      await("one run to succeed and the duplicates to lose their claims")
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
  }

  @Test
  void large_groups_claimed_in_halves_by_two_workers_run_every_instance_once() {
    // Four tasks: the publisher keys by task id, so the records spread over the partitions.
    List<String> tasks = List.of("many-a", "many-b", "many-c", "many-d");
    tasks.forEach(t -> kit.task(t, "counting", "{\"duration\":\"1ms\"}"));
    int n = 400;
    Instance[] all = new Instance[n];
    for (int k = 0; k < n; k++) {
      all[k] = kit.instance(tasks.get(k % tasks.size()), "k" + k, Duration.ofSeconds(30));
    }
    // Every instance twice, both copies before any worker starts: the workers' first polls hold
    // hundreds of records, so groups are claimed as two halves on two connections, and copies of
    // one id meet in one group, in two halves, or on two workers.
    kit.publish(all);
    kit.publish(all);
    Map<String, String> ahead = Map.of("worker.concurrency", "8", "worker.prefetch", "1000");
    try (WorkerService w1 = kit.worker("many-1", ahead);
        WorkerService w2 = kit.worker("many-2", ahead)) {
      List<WorkerService> workers = List.of(w1, w2);
      // Every message is claimed or lost at least once. Not exactly once: the second worker's join
      // revokes the first one's partitions, and records it read after its last commit are read
      // again by their next owner (possibly itself), whose claims lose (InstanceConsumer#commit).
      await("every message to be claimed or lost")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(sum(workers, m -> m.claimed.count() + m.lostClaims.count()))
                      .isGreaterThanOrEqualTo(2 * n));
      await("every instance to run and the last to finish")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                assertThat(executions(tasks)).isGreaterThanOrEqualTo(n);
                assertThat(kit.find(all[n - 1].id()).status().isFinished()).isTrue();
              });
      for (Instance i : all) {
        assertThat(kit.find(i.id()).status()).isEqualTo(InstanceStatus.SUCCESS);
        assertThat(kit.find(i.id()).attempt()).isEqualTo(1);
      }
      assertThat(executions(tasks)).isEqualTo(n);
      assertThat(sum(workers, m -> m.claimed.count())).isEqualTo(n);
      assertThat(sum(workers, m -> m.lostClaims.count())).isGreaterThanOrEqualTo(n);
    }
  }

  private static int executions(List<String> tasks) {
    return tasks.stream().mapToInt(t -> CountingAgent.probe(t).executions.get()).sum();
  }

  private static double sum(
      List<WorkerService> workers, java.util.function.ToDoubleFunction<WorkerMetrics> f) {
    return workers.stream().mapToDouble(w -> f.applyAsDouble(w.metrics())).sum();
  }
}
