package dev.carillon.model.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.schedule.Window;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PlannedRetriesTest {
  private static final Instant FAILED = Instant.parse("2026-03-29T08:00:00Z");
  private static final Window DAY =
      new Window(
          "2026-03-29",
          Instant.parse("2026-03-29T00:00:00Z"),
          Instant.parse("2026-03-30T00:00:00Z"));

  @Test
  void exponential_delays_double_from_each_failure_without_jitter_until_the_budget_is_used() {
    PlannedRetries plan =
        PlannedRetries.of(
            new ExponentialRetry(Duration.ofMinutes(1), 2.0, Duration.ofHours(1), 0.2, 3),
            FAILED,
            DAY);

    assertThat(plan.steps())
        .extracting(PlannedRetries.Step::delay)
        .containsExactly(Duration.ofMinutes(1), Duration.ofMinutes(2), Duration.ofMinutes(4));
    assertThat(plan.steps())
        .extracting(PlannedRetries.Step::after)
        .containsExactly(Duration.ofMinutes(1), Duration.ofMinutes(3), Duration.ofMinutes(7));
    assertThat(plan.steps().get(2).at()).isEqualTo(FAILED.plus(Duration.ofMinutes(7)));
    assertThat(plan.deadReason()).contains("3");
  }

  @Test
  void no_retry_plans_nothing_and_says_why_the_first_failure_is_dead() {
    PlannedRetries plan = PlannedRetries.of(RetryPolicy.none(), FAILED, DAY);
    assertThat(plan.steps()).isEmpty();
    assertThat(plan.deadReason()).isNotBlank();
  }
}
