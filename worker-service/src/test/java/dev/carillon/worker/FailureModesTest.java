package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.api.AgentContext;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.Lease;
import dev.carillon.store.Outcome;
import dev.carillon.testsupport.Tasks;
import dev.carillon.worker.run.Outcomes;
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
class FailureModesTest {
  static WorkerTestKit kit;
  static WorkerService worker;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_faults", 1);
    worker = kit.worker("faults-1", Map.of("worker.max-summary-bytes", "1024"));
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  /** Runs one instance of {@code taskId}; a {@code null} handler uses the task as it is. */
  private static Instance runToEnd(String taskId, String handler, String params, Duration timeout) {
    if (handler != null) {
      kit.task(taskId, handler, params);
    }
    Instance i = kit.instance(taskId, "w1", timeout);
    kit.publish(i);
    await(taskId + " to end")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(kit.find(i.id()).status())
                    .isNotIn(InstanceStatus.PENDING, InstanceStatus.RUNNING));
    return kit.find(i.id());
  }

  @Test
  void a_run_past_its_deadline_is_interrupted_and_marked_timeout() {
    // Its gate never opens: only the worker's interrupt at the deadline ends the run.
    Instance done = runToEnd("slow", "counting", "{\"gate\":\"never\"}", Duration.ofSeconds(1));
    assertThat(done.status()).isEqualTo(InstanceStatus.TIMEOUT);
    assertThat(done.failReason()).contains("exceeded its timeout of PT1S").contains("faults-1");
    assertThat(done.attempt()).isEqualTo(1);
  }

  @Test
  void a_run_that_ignores_interrupts_is_still_marked_timeout_at_its_deadline() {
    Instance done =
        runToEnd(
            "deaf",
            "counting",
            "{\"gate\":\"deaf\",\"ignoreInterrupts\":true}",
            Duration.ofSeconds(1));
    assertThat(done.status()).isEqualTo(InstanceStatus.TIMEOUT);
    // Marked at the deadline, not when the agent finally returns: it cannot return before the
    // test opens its gate.
    CountingAgent.Probe probe = CountingAgent.probe("deaf");
    assertThat(probe.finished).as("the deaf run is still blocked on its gate").hasValue(0);
    CountingAgent.gate("deaf").countDown();
    await("the deaf run to return once its gate opens")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(probe.finished).hasValue(1));
    assertThat(kit.find(done.id()).status()).isEqualTo(InstanceStatus.TIMEOUT);
  }

  @Test
  void a_plugin_throwing_an_error_fails_the_instance_and_the_worker_keeps_working() {
    Instance crashed =
        runToEnd(
            "crash", "counting", "{\"throwError\":\"StackOverflowError\"}", Duration.ofSeconds(30));
    assertThat(crashed.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(crashed.failReason()).startsWith("java.lang.StackOverflowError:");
    assertThat(crashed.nonRetryable()).isFalse();

    Instance next = runToEnd("after-crash", "counting", "{}", Duration.ofSeconds(30));
    assertThat(next.status()).isEqualTo(InstanceStatus.SUCCESS);
  }

  @Test
  void a_non_retryable_failure_is_recorded_as_such() {
    Instance done =
        runToEnd(
            "permanent",
            "counting",
            "{\"failFirst\":1,\"nonRetryable\":true}",
            Duration.ofSeconds(30));
    assertThat(done.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(done.nonRetryable()).isTrue();
    assertThat(done.failReason())
        .startsWith("dev.carillon.api.NonRetryableException: counting: failing attempt 1");
  }

  @Test
  void an_oversized_summary_is_cut_at_a_character_boundary_and_marked() {
    // Two-byte characters: a cut at the byte limit alone would split one of them.
    Instance done =
        runToEnd(
            "big-summary",
            "counting",
            "{\"summary\":\"headline número \",\"repeat\":500}",
            Duration.ofSeconds(30));
    assertThat(done.status()).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(done.resultTruncated()).isTrue();
    assertThat(done.resultSummary().getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(1024);
    assertThat(done.resultSummary())
        .startsWith("headline número headline")
        .endsWith(Outcomes.TRUNCATION_MARK);
    assertThat(done.resultUri()).isNull();
  }

  @Test
  void an_instance_whose_handler_this_worker_lacks_is_not_claimed_and_waits_pending() {
    kit.task("orphan", "nope", "{}");
    Instance i = kit.instance("orphan", "w1", Duration.ofSeconds(30));
    double before = worker.metrics().notServed.count();
    kit.publish(i);
    await("the worker leaves the record of a handler it does not have")
        .atMost(Duration.ofSeconds(30))
        .until(() -> worker.metrics().notServed.count() > before);
    Instance left = kit.find(i.id());
    assertThat(left.status()).isEqualTo(InstanceStatus.PENDING);
    assertThat(left.attempt()).as("never claimed, so no attempt was used").isZero();
    assertThat(left.failReason()).isNull();
    assertThat(kit.instances.events(i.id()))
        .noneMatch(e -> e.to() == InstanceStatus.RUNNING || e.to() == InstanceStatus.FAILED);
  }

  @Test
  void a_task_edited_by_hand_runs_with_a_broken_schedule_but_not_with_broken_params() {
    kit.task("hand-cron", "counting", "{}");
    kit.task("hand-params", "counting", "{}");
    // Past the checks of an apply: a run needs only the handler and the params.
    kit.db
        .dsl()
        .execute("UPDATE task_definition SET cron = 'nonsense' WHERE task_id = 'hand-cron'");
    kit.db.dsl().execute("UPDATE task_definition SET params = '[1]' WHERE task_id = 'hand-params'");

    assertThat(runToEnd("hand-cron", null, null, Duration.ofSeconds(30)).status())
        .isEqualTo(InstanceStatus.SUCCESS);
    Instance broken = runToEnd("hand-params", null, null, Duration.ofSeconds(30));
    assertThat(broken.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(broken.nonRetryable()).isFalse();
    assertThat(broken.failReason())
        .startsWith("task 'hand-params' has no runnable definition")
        .endsWith("retryable");
  }

  @Test
  void a_retried_attempt_runs_with_its_window_attempt_retry_count_and_previous_failure() {
    kit.task("second-try", "counting", "{\"duration\":\"0s\"}");
    Instance created = kit.instance("second-try", "w1", Duration.ofSeconds(30));
    // Attempt 1 failed elsewhere and the retry service made the instance due again.
    kit.leases.claim(List.of(created.id()), "worker-gone");
    assertThat(
            kit.leases.complete(
                new Lease(created.id(), 1), Outcome.failure("boom 1", false), "worker-gone"))
        .isTrue();
    Fence retryLeader = new EpochStore(kit.db.dsl()).begin("retry", "test");
    assertThat(
            kit.retries.scheduleRetry(
                kit.find(created.id()),
                Instant.parse("2000-01-01T00:00:00Z"),
                1L,
                "retry",
                "1",
                retryLeader))
        .isTrue();
    assertThat(kit.retries.promoteDueRetries(100, "retry", retryLeader))
        .extracting(Instance::id)
        .contains(created.id());

    kit.publish(kit.find(created.id()));
    await("the retried attempt to succeed")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(kit.find(created.id()).status()).isEqualTo(InstanceStatus.SUCCESS));

    AgentContext seen = CountingAgent.probe("second-try").lastContext.get();
    assertThat(seen.windowKey()).isEqualTo("w1");
    assertThat(seen.windowStart()).isEqualTo(created.windowStart());
    assertThat(seen.windowEnd()).isEqualTo(created.windowEnd());
    assertThat(seen.scheduledAt()).isEqualTo(created.scheduledAt());
    assertThat(seen.attempt()).isEqualTo(2);
    assertThat(seen.retryCount()).isEqualTo(1);
    assertThat(seen.previousFailureReason()).contains("boom 1");
    assertThat(seen.paramsJson()).isEqualTo("{\"duration\":\"0s\"}");
  }

  @Test
  void a_run_now_params_override_is_merged_over_the_task_params_for_that_instance_only() {
    kit.task("overridden", "counting", "{\"duration\":\"0s\",\"user\":\"u-1\",\"lang\":\"en\"}");
    Instance plain = kit.instance("overridden", "plain", Duration.ofMinutes(1));
    Instance run =
        kit.windows
            .createRun(
                Tasks.pendingKey("overridden", "manual-1", Duration.ofMinutes(1)),
                "{\"user\":\"u-2\",\"extra\":{\"n\":1}}",
                "test")
            .orElseThrow();
    assertThat(run.paramsOverride()).isEqualTo("{\"user\":\"u-2\",\"extra\":{\"n\":1}}");
    assertThat(kit.find(run.id()).paramsOverride()).isEqualTo(run.paramsOverride());

    kit.publish(run);
    await("the overridden run to succeed")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(kit.find(run.id()).status()).isEqualTo(InstanceStatus.SUCCESS));
    assertThat(CountingAgent.probe("overridden").lastContext.get().paramsJson())
        .isEqualTo("{\"duration\":\"0s\",\"user\":\"u-2\",\"lang\":\"en\",\"extra\":{\"n\":1}}");

    kit.publish(plain);
    await("the scheduled run to succeed")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(kit.find(plain.id()).status()).isEqualTo(InstanceStatus.SUCCESS));
    assertThat(CountingAgent.probe("overridden").lastContext.get().paramsJson())
        .isEqualTo("{\"duration\":\"0s\",\"user\":\"u-1\",\"lang\":\"en\"}");
  }
}
