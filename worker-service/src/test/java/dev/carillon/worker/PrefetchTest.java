package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code worker.prefetch}: a worker claims beyond its free run slots, the extra instances wait on
 * the worker with their leases kept, and the run threads are reused.
 */
@Timeout(120)
class PrefetchTest {
  static WorkerTestKit kit;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_prefetch", 1);
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void a_worker_claims_ahead_up_to_its_prefetch_but_runs_no_more_than_its_concurrency() {
    kit.task("ahead", "counting", "{\"duration\":\"150ms\"}");
    Instance[] all = new Instance[24];
    for (int n = 0; n < all.length; n++) {
      all[n] = kit.instance("ahead", "w" + n, Duration.ofSeconds(30));
    }
    kit.publish(all);
    try (WorkerService worker =
        kit.worker("ahead-1", Map.of("worker.concurrency", "2", "worker.prefetch", "6"))) {
      AtomicInteger sampledMax = new AtomicInteger();
      await("every prefetched run to succeed")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .untilAsserted(
              () -> {
                sampledMax.accumulateAndGet(kit.runningOn("ahead-1"), Math::max);
                assertThat(kit.instances.countByStatus("ahead"))
                    .containsEntry(InstanceStatus.SUCCESS, all.length);
                // Counted once each end write returns, just after the rows show it.
                assertThat(worker.metrics().succeeded.count()).isEqualTo(all.length);
              });

      CountingAgent.Probe probe = CountingAgent.probe("ahead");
      assertThat(probe.max).as("most runs at once in the agent").hasValue(2);
      assertThat(probe.executions).hasValue(all.length);
      // 24 runs of 150 ms on 2 slots take ~1.8 s; the claimed-ahead rows are RUNNING all along.
      assertThat(sampledMax.get())
          .as("most RUNNING rows of this worker seen: claimed beyond the 2 slots, never beyond 8")
          .isBetween(3, 8);
      assertThat(worker.metrics().lostClaims.count()).isZero();
    }
  }

  @Test
  void shutdown_releases_the_instances_still_waiting_for_a_slot_without_running_them() {
    kit.task("waiting", "counting", "{\"duration\":\"20s\"}");
    Instance[] all = new Instance[4];
    for (int n = 0; n < all.length; n++) {
      all[n] = kit.instance("waiting", "w" + n, Duration.ofSeconds(60));
    }
    kit.publish(all);
    WorkerService worker =
        kit.worker(
            "waiting-1",
            Map.of(
                "worker.concurrency", "1",
                "worker.prefetch", "3",
                "worker.drain-timeout", "200ms"));
    await("four claimed instances on waiting-1")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> assertThat(kit.runningOn("waiting-1")).isEqualTo(4));

    worker.close();

    assertThat(worker.metrics().released.count()).isEqualTo(4);
    assertThat(CountingAgent.probe("waiting").executions).as("only one ever started").hasValue(1);
    assertThat(kit.instances.countByStatus("waiting"))
        .containsExactlyEntriesOf(Map.of(InstanceStatus.PENDING, 4));
    for (Instance i : all) {
      assertThat(kit.instances.events(i.id()))
          .anySatisfy(
              e -> {
                assertThat(e.kind()).isEqualTo(InstanceEvent.Kind.TRANSITION);
                assertThat(e.from()).isEqualTo(InstanceStatus.RUNNING);
                assertThat(e.to()).isEqualTo(InstanceStatus.PENDING);
                assertThat(e.reason()).contains("waiting-1 shut down");
              });
    }
  }

  @Test
  void an_interrupt_left_by_a_timed_out_plugin_does_not_reach_the_next_run_on_its_thread() {
    // "deaf" swallows the deadline's interrupt, keeps sleeping past its 300 ms timeout and returns
    // with the interrupt flag set again. Its pooled thread must not hand that flag to later runs:
    // with one slot, the run after the next one is started on that thread.
    kit.task("deaf-first", "counting", "{\"duration\":\"900ms\",\"ignoreInterrupts\":true}");
    kit.task("after-deaf", "counting", "{\"duration\":\"100ms\"}");
    Instance deaf = kit.instance("deaf-first", "w0", Duration.ofMillis(300));
    Instance[] after = new Instance[4];
    for (int n = 0; n < after.length; n++) {
      after[n] = kit.instance("after-deaf", "w" + n, Duration.ofSeconds(30));
    }
    kit.publish(deaf);
    kit.publish(after);
    try (WorkerService worker =
        kit.worker("reuse-1", Map.of("worker.concurrency", "1", "worker.prefetch", "4"))) {
      await("the runs after the deaf one to succeed")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(kit.instances.countByStatus("after-deaf"))
                      .containsEntry(InstanceStatus.SUCCESS, after.length));
      assertThat(kit.find(deaf.id()).status()).isEqualTo(InstanceStatus.TIMEOUT);
      assertThat(CountingAgent.probe("after-deaf").sawCancellation).hasValue(0);
      assertThat(worker.metrics().failed.count()).isZero();
    }
  }
}
