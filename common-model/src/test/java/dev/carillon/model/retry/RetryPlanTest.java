package dev.carillon.model.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.schedule.Window;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetryPlanTest {
  private static final Instant FAILED_AT = Instant.parse("2026-11-29T08:00:00Z");
  private static final Window DAY =
      new Window(
          "2026-11-29",
          Instant.parse("2026-11-29T00:00:00Z"),
          Instant.parse("2026-11-30T00:00:00Z"));

  private static Duration minutes(long m) {
    return Duration.ofMinutes(m);
  }

  @Test
  void one_hour_from_five_minutes_doubling_fits_three_retries_at_5_10_and_20_minutes() {
    RetryPlan plan = RetryPlan.fit(Duration.ofHours(1), minutes(5), 2.0);

    assertThat(plan.delays()).containsExactly(minutes(5), minutes(10), minutes(20));
    assertThat(plan.retries()).isEqualTo(3);
    assertThat(plan.cumulative()).isEqualTo(minutes(35));
  }

  @Test
  void the_seeds_log_formula_would_plan_one_retry_too_many() {
    RetryPlan plan = RetryPlan.fit(Duration.ofHours(1), minutes(5), 2.0);
    int seedFormula = (int) Math.ceil(Math.log(60.0 / 5.0) / Math.log(2.0));
    Duration withFourth = plan.cumulative().plus(minutes(40));

    assertThat(seedFormula).isEqualTo(4);
    assertThat(withFourth).isEqualTo(minutes(75)).isGreaterThan(Duration.ofHours(1));
    assertThat(plan.retries()).isEqualTo(seedFormula - 1);
  }

  @Test
  void a_cumulative_wait_equal_to_the_recovery_time_still_fits() {
    assertThat(RetryPlan.fit(minutes(35), minutes(5), 2.0).retries()).isEqualTo(3);
    assertThat(RetryPlan.fit(minutes(35).minusMillis(1), minutes(5), 2.0).retries()).isEqualTo(2);
  }

  @Test
  void a_fractional_multiplier_sums_exact_waits() {
    RetryPlan plan = RetryPlan.fit(Duration.ofHours(1), minutes(5), 1.5);

    assertThat(plan.delays())
        .containsExactly(
            minutes(5),
            Duration.ofSeconds(450),
            Duration.ofSeconds(675),
            Duration.ofMillis(1_012_500));
    assertThat(plan.cumulative()).isEqualTo(Duration.ofMillis(2_437_500));
  }

  @Test
  void a_cap_keeps_later_waits_flat_so_more_retries_fit() {
    RetryPlan plan = new RetryPlan(Duration.ofHours(2), minutes(5), 2.0, minutes(15));

    assertThat(plan.retries()).isEqualTo(9);
    assertThat(plan.delays().subList(0, 3)).containsExactly(minutes(5), minutes(10), minutes(15));
    assertThat(plan.cumulative()).isEqualTo(Duration.ofHours(2));
  }

  @Test
  void a_plan_never_exceeds_the_retry_limit() {
    RetryPlan plan =
        new RetryPlan(Duration.ofDays(7), Duration.ofSeconds(1), 2.0, Duration.ofSeconds(1));

    assertThat(plan.retries()).isEqualTo(RetryPolicy.MAX_RETRIES);
  }

  @Test
  void a_recovery_time_shorter_than_the_first_wait_fits_no_retry() {
    RetryPlan plan = RetryPlan.fit(minutes(4), minutes(5), 2.0);

    assertThat(plan.retries()).isZero();
    assertThat(plan.cumulative()).isEqualTo(Duration.ZERO);
    assertThat(plan.toPolicy().decide(FAILED_AT, 0, DAY, false, 0.5).isDead()).isTrue();
    assertThatThrownBy(plan::toDelayedPolicy)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("PT5M")
        .hasMessageContaining("PT4M");
  }

  @Test
  void the_exponential_policy_of_a_plan_retries_at_exactly_the_planned_waits() {
    RetryPlan plan = RetryPlan.fit(Duration.ofHours(1), minutes(5), 2.0);
    ExponentialRetry policy = plan.toPolicy();

    assertThat(policy.maxRetries()).isEqualTo(3);
    assertThat(policy.jitter()).isZero();
    assertThat(policy.delays()).isEqualTo(plan.delays());
    assertThat(policy.decide(FAILED_AT, 2, DAY, false, 0.5).retryAt())
        .contains(Instant.parse("2026-11-29T08:20:00Z"));
    assertThat(policy.decide(FAILED_AT, 3, DAY, false, 0.5).isDead()).isTrue();
  }

  @Test
  void the_delayed_policy_of_a_plan_lists_the_planned_waits() {
    RetryPlan plan = RetryPlan.fit(Duration.ofHours(1), minutes(5), 2.0);

    assertThat(plan.toDelayedPolicy())
        .isEqualTo(new DelayedRetry(List.of(minutes(5), minutes(10), minutes(20)), 3));
  }

  @Test
  void a_plan_refuses_bad_inputs_naming_the_value() {
    assertThatThrownBy(() -> RetryPlan.fit(Duration.ZERO, minutes(5), 2.0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("recovery")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> RetryPlan.fit(Duration.ofHours(1), minutes(5), 1.0))
        .isInstanceOfSatisfying(
            InvalidValueException.class,
            e -> assertThat(e.problem().field()).isEqualTo("multiplier"));
    assertThatThrownBy(() -> new RetryPlan(Duration.ofHours(1), minutes(5), 2.0, minutes(1)))
        .isInstanceOfSatisfying(
            InvalidValueException.class, e -> assertThat(e.problem().field()).isEqualTo("cap"));
  }
}
