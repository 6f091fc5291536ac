package dev.carillon.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.RunCancelledException;
import dev.carillon.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TestAgentContextTest {
  private static final Instant START = Instant.parse("2026-03-07T22:15:00Z");

  @Test
  void defaults_are_a_first_attempt_of_the_utc_day_of_the_start_with_the_default_timeout() {
    TestAgentContext context = TestAgentContext.builder().build();

    assertThat(context.taskId()).isEqualTo("test-task");
    assertThat(context.windowKey()).isEqualTo("2026-11-29");
    assertThat(context.windowStart()).isEqualTo(Instant.parse("2026-11-29T00:00:00Z"));
    assertThat(context.windowEnd()).isEqualTo(Instant.parse("2026-11-30T00:00:00Z"));
    assertThat(context.startedAt()).isEqualTo(Instant.parse(TestAgentContext.DEFAULT_START));
    assertThat(context.scheduledAt()).isEqualTo(context.startedAt());
    assertThat(context.deadline()).isEqualTo(Instant.parse("2026-11-29T08:30:00Z"));
    assertThat(context.attempt()).isEqualTo(1);
    assertThat(context.retryCount()).isZero();
    assertThat(context.previousFailureReason()).isEmpty();
    assertThat(context.paramsJson()).isEqualTo("{}");
    assertThat(context.idempotencyKey()).isEqualTo("test-task/2026-11-29");
  }

  @Test
  void the_start_is_read_from_the_clock_at_build_and_the_deadline_adds_the_timeout() {
    SettableClock clock = new SettableClock(START);
    TestAgentContext context =
        TestAgentContext.builder().clock(clock).timeout(Duration.ofMinutes(10)).build();
    clock.advance(Duration.ofMinutes(3));

    assertThat(context.startedAt()).isEqualTo(START);
    assertThat(context.deadline()).isEqualTo(START.plus(Duration.ofMinutes(10)));
    assertThat(context.windowKey()).isEqualTo("2026-03-07");
  }

  @Test
  void every_value_can_be_chosen() {
    Instant windowStart = Instant.parse("2026-03-07T00:00:00Z");
    TestAgentContext context =
        TestAgentContext.builder()
            .taskId("reports")
            .window("2026-W10", windowStart, windowStart.plus(Duration.ofDays(7)))
            .scheduledAt(windowStart.plusSeconds(60))
            .attempt(3)
            .retryCount(1)
            .previousFailureReason("tool timed out")
            .params("{\"a\":1}")
            .build();

    assertThat(context.idempotencyKey()).isEqualTo("reports/2026-W10");
    assertThat(context.windowEnd()).isEqualTo(Instant.parse("2026-03-14T00:00:00Z"));
    assertThat(context.scheduledAt()).isEqualTo(windowStart.plusSeconds(60));
    assertThat(context.attempt()).isEqualTo(3);
    assertThat(context.retryCount()).isEqualTo(1);
    assertThat(context.previousFailureReason()).contains("tool timed out");
    assertThat(context.paramsJson()).isEqualTo("{\"a\":1}");
  }

  @Test
  void a_retried_context_is_the_next_attempt_of_the_same_instance_with_the_failure() {
    TestAgentContext first = TestAgentContext.builder().taskId("reports").params("{}").build();

    TestAgentContext second = first.retried("boom");

    assertThat(second.idempotencyKey()).isEqualTo(first.idempotencyKey());
    assertThat(second.attempt()).isEqualTo(2);
    assertThat(second.retryCount()).isEqualTo(1);
    assertThat(second.previousFailureReason()).contains("boom");
    assertThat(second.startedAt()).isEqualTo(first.startedAt());
    assertThat(second.deadline()).isEqualTo(first.deadline());
  }

  @Test
  void heartbeats_are_recorded_in_order_until_the_test_cancels_the_run() {
    TestAgentContext context = TestAgentContext.of("{}");
    context.heartbeat("step 1");
    context.heartbeat(null);
    context.checkCancelled();

    context.cancel();
    context.heartbeat("after cancel");

    assertThat(context.heartbeats()).containsExactly("step 1", null);
    assertThat(context.isCancelled()).isTrue();
    assertThatThrownBy(context::checkCancelled)
        .isInstanceOf(RunCancelledException.class)
        .hasMessage("run test-task/2026-11-29 attempt 1 was cancelled");
  }

  @Test
  void bad_values_are_refused_naming_the_field_and_value() {
    TestAgentContext.Builder builder = TestAgentContext.builder();
    assertThatThrownBy(() -> builder.attempt(0)).hasMessage("attempt must be 1 or more, was 0");
    assertThatThrownBy(() -> builder.retryCount(-1))
        .hasMessage("retryCount must be 0 or more, was -1");
    assertThatThrownBy(() -> builder.timeout(Duration.ZERO))
        .hasMessage("timeout must be positive, was PT0S");
    assertThatThrownBy(() -> builder.window("w", START, START.minusSeconds(1)))
        .hasMessageContaining("window end 2026-03-07T22:14:59Z must not be before its start");
  }
}
