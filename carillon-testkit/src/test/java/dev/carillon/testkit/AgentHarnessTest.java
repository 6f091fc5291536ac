package dev.carillon.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.api.NonRetryableException;
import dev.carillon.model.task.InvalidTaskException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class AgentHarnessTest {
  /** Does what its params say: {@code ok}, {@code fail}, {@code refuse} or {@code block}. */
  static final class ScriptedAgent implements AgentTask {
    /** Never opened: a blocked run ends only by cancellation. */
    private final CountDownLatch never = new CountDownLatch(1);

    @Override
    public String type() {
      return "scripted";
    }

    @Override
    public AgentResult run(AgentContext context) throws Exception {
      String params = context.paramsJson();
      if (params.contains("\"fail\"")) {
        throw new IllegalStateException("tool unavailable for " + context.idempotencyKey());
      }
      if (params.contains("\"refuse\"")) {
        throw new NonRetryableException("bad params: " + params);
      }
      if (params.contains("\"block\"")) {
        never.await();
      }
      return AgentResult.of(
          "done " + context.idempotencyKey() + " #" + context.attempt(),
          URI.create("s3://outbox/" + context.windowKey()));
    }
  }

  static AgentHarness harness;

  @BeforeAll
  static void start() {
    harness = AgentHarness.start(new ScriptedAgent());
  }

  @AfterAll
  static void stop() {
    harness.close();
  }

  @Test
  void a_run_that_returns_succeeds_with_its_summary_artifact_and_history() {
    Instant start = Instant.parse("2026-11-29T00:00:00Z");
    RunOutcome outcome =
        harness.run(
            TestRun.of("scripted")
                .withParams("{\"do\":\"ok\"}")
                .withTaskId("daily-digest")
                .withWindow("2026-11-29", start, start.plus(Duration.ofDays(1))));

    assertThat(outcome.status()).as(outcome.toString()).isEqualTo(RunOutcome.Status.SUCCESS);
    assertThat(outcome.succeeded()).isTrue();
    assertThat(outcome.attempt()).isEqualTo(1);
    assertThat(outcome.summary()).contains("done daily-digest/2026-11-29 #1");
    assertThat(outcome.artifact()).contains(URI.create("s3://outbox/2026-11-29"));
    assertThat(outcome.failReason()).isEmpty();
    assertThat(outcome.events())
        .extracting(e -> e.from().orElse("-") + ">" + e.to())
        .containsExactly("->PENDING", "PENDING>RUNNING", "RUNNING>SUCCESS");
    assertThat(outcome.events().get(2).actor()).isEqualTo(harness.workerId());
  }

  @Test
  void an_ordinary_exception_fails_retryably_with_the_reason() {
    RunOutcome outcome = harness.run("scripted", "{\"do\":\"fail\"}");

    assertThat(outcome.status()).as(outcome.toString()).isEqualTo(RunOutcome.Status.FAILED);
    assertThat(outcome.failedRetryably()).isTrue();
    assertThat(outcome.failedPermanently()).isFalse();
    assertThat(outcome.failReason())
        .hasValueSatisfying(
            r -> assertThat(r).startsWith("java.lang.IllegalStateException: tool unavailable"));
  }

  @Test
  void a_non_retryable_exception_fails_permanently() {
    RunOutcome outcome = harness.run("scripted", "{\"do\":\"refuse\"}");

    assertThat(outcome.failedPermanently()).as(outcome.toString()).isTrue();
    assertThat(outcome.failReason())
        .hasValueSatisfying(r -> assertThat(r).contains("NonRetryableException: bad params"));
  }

  @Test
  void a_run_past_its_timeout_is_cancelled_and_times_out() {
    RunOutcome outcome =
        harness.run(
            TestRun.of("scripted")
                .withParams("{\"do\":\"block\"}")
                .withTimeout(Duration.ofSeconds(1)));

    assertThat(outcome.timedOut()).as(outcome.toString()).isTrue();
    assertThat(outcome.failReason())
        .hasValueSatisfying(r -> assertThat(r).contains("exceeded its timeout of PT1S"));
    assertThat(outcome.summary()).isEmpty();
  }

  @Test
  void params_a_task_definition_would_refuse_are_refused_before_anything_runs() {
    assertThatThrownBy(() -> harness.run("scripted", "[1]"))
        .isInstanceOf(InvalidTaskException.class)
        .hasMessageContaining("params");
  }

  @Test
  void a_second_run_of_the_same_task_and_window_is_refused_naming_both() {
    Instant start = Instant.parse("2026-11-30T00:00:00Z");
    TestRun run =
        TestRun.of("scripted")
            .withTaskId("twice")
            .withWindow("2026-11-30", start, start.plus(Duration.ofDays(1)));
    assertThat(harness.run(run).succeeded()).isTrue();

    assertThatThrownBy(() -> harness.run(run))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("task 'twice' already has an instance for window '2026-11-30'");
  }
}
