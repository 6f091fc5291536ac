package dev.carillon.model.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.schedule.Window;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RetryPolicyTest {
  private static final Instant FAILED_AT = Instant.parse("2026-11-29T08:00:00Z");
  private static final Window DAY =
      new Window(
          "2026-11-29",
          Instant.parse("2026-11-29T00:00:00Z"),
          Instant.parse("2026-11-30T00:00:00Z"));
  private static final double NO_JITTER = 0.5;

  private static RetryDecision decide(RetryPolicy policy, Instant failedAt, int retryCount) {
    return policy.decide(failedAt, retryCount, DAY, false, NO_JITTER);
  }

  static Stream<RetryPolicy> retryingPolicies() {
    return Stream.of(
        new ImmediateRetry(3),
        new DelayedRetry(List.of(Duration.ofMinutes(5), Duration.ofMinutes(15)), 3),
        new ExponentialRetry(Duration.ofMinutes(5), 2.0, Duration.ofHours(1), 0.2, 3),
        new WindowRetry(Duration.ofMinutes(10), Duration.ZERO, 3));
  }

  // NONE

  @Test
  void none_is_the_default_and_is_always_dead_because_the_task_is_not_retryable() {
    RetryPolicy none = RetryPolicy.none();

    assertThat(none.kind()).isEqualTo("NONE");
    assertThat(none.maxRetries()).isZero();
    assertThat(decide(none, FAILED_AT, 0)).isEqualTo(RetryDecision.dead("task is not retryable"));
    assertThat(none.decide(FAILED_AT, 0, DAY, true, 0.0).reason())
        .isEqualTo("task is not retryable");
  }

  // IMMEDIATE

  @Test
  void immediate_retries_at_the_instant_the_attempt_failed() {
    RetryDecision decision = decide(new ImmediateRetry(3), FAILED_AT, 0);

    assertThat(decision.retryAt()).contains(FAILED_AT);
    assertThat(decision.reason()).isEqualTo("retry 1 of 3 at 2026-11-29T08:00:00Z (after 0s)");
  }

  // DELAYED

  @Test
  void delayed_waits_each_listed_delay_in_turn_counted_from_the_failure() {
    DelayedRetry policy =
        new DelayedRetry(
            List.of(Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30)), 3);

    assertThat(decide(policy, FAILED_AT, 0).retryAt())
        .contains(Instant.parse("2026-11-29T08:05:00Z"));
    assertThat(decide(policy, FAILED_AT, 1).retryAt())
        .contains(Instant.parse("2026-11-29T08:15:00Z"));
    assertThat(decide(policy, FAILED_AT, 2).retryAt())
        .contains(Instant.parse("2026-11-29T08:30:00Z"));
    assertThat(decide(policy, FAILED_AT, 1).reason())
        .isEqualTo("retry 2 of 3 at 2026-11-29T08:15:00Z (after 15m)");
  }

  @Test
  void delayed_repeats_the_last_delay_when_retries_outnumber_the_list() {
    DelayedRetry policy =
        new DelayedRetry(List.of(Duration.ofMinutes(5), Duration.ofMinutes(15)), 5);

    assertThat(policy.delayFor(2)).isEqualTo(Duration.ofMinutes(15));
    assertThat(decide(policy, FAILED_AT, 4).retryAt())
        .contains(Instant.parse("2026-11-29T08:15:00Z"));
  }

  // EXPONENTIAL

  @Test
  void exponential_without_jitter_doubles_from_the_initial_wait_up_to_the_cap() {
    ExponentialRetry policy =
        new ExponentialRetry(Duration.ofMinutes(5), 2.0, Duration.ofHours(1), 0.0, 6);

    assertThat(policy.delays())
        .containsExactly(
            Duration.ofMinutes(5),
            Duration.ofMinutes(10),
            Duration.ofMinutes(20),
            Duration.ofMinutes(40),
            Duration.ofHours(1),
            Duration.ofHours(1));
    assertThat(decide(policy, FAILED_AT, 2).retryAt())
        .contains(Instant.parse("2026-11-29T08:20:00Z"));
    assertThat(decide(policy, FAILED_AT, 2).reason())
        .isEqualTo("retry 3 of 6 at 2026-11-29T08:20:00Z (after 20m)");
  }

  @Test
  void exponential_with_a_fractional_multiplier_gives_exact_millisecond_values() {
    ExponentialRetry policy =
        new ExponentialRetry(Duration.ofMinutes(5), 1.5, Duration.ofHours(1), 0.0, 3);

    assertThat(policy.delays())
        .containsExactly(Duration.ofMinutes(5), Duration.ofSeconds(450), Duration.ofSeconds(675));
  }

  @Test
  void exponential_with_jitter_but_a_centre_sample_gives_the_exact_value() {
    ExponentialRetry policy =
        new ExponentialRetry(Duration.ofMinutes(10), 2.0, Duration.ofHours(1), 0.2, 3);

    assertThat(policy.delayFor(0, 0.5)).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void exponential_jitter_spreads_the_wait_between_minus_and_plus_jitter() {
    ExponentialRetry policy =
        new ExponentialRetry(Duration.ofMinutes(10), 2.0, Duration.ofHours(1), 0.2, 3);

    assertThat(policy.delayFor(0, 0.0)).isEqualTo(Duration.ofMinutes(8));
    assertThat(policy.delayFor(0, 0.999_999))
        .isBetween(Duration.ofSeconds(719), Duration.ofMinutes(12));
    assertThat(policy.delayFor(0, 1.0)).isEqualTo(Duration.ofMinutes(12));
    assertThat(policy.decide(FAILED_AT, 0, DAY, false, 0.0).retryAt())
        .contains(Instant.parse("2026-11-29T08:08:00Z"));
  }

  @Test
  void exponential_jitter_never_goes_above_the_cap_or_below_zero() {
    ExponentialRetry policy =
        new ExponentialRetry(Duration.ofMinutes(10), 2.0, Duration.ofMinutes(40), 1.0, 5);

    assertThat(policy.delayFor(2, 0.999_999)).isEqualTo(Duration.ofMinutes(40));
    assertThat(policy.delayFor(4, 1.0)).isEqualTo(Duration.ofMinutes(40));
    assertThat(policy.delayFor(0, 0.0)).isEqualTo(Duration.ZERO);
    assertThat(policy.decide(FAILED_AT, 0, DAY, false, 0.0).retryAt()).contains(FAILED_AT);
  }

  @Test
  void exponential_pins_the_exponent_so_huge_retry_counts_give_the_cap() {
    ExponentialRetry policy =
        new ExponentialRetry(Duration.ofMillis(1), 10.0, Duration.ofDays(7), 0.0, 100);

    assertThat(policy.delayFor(1000, 0.5)).isEqualTo(Duration.ofDays(7));
    assertThat(policy.delayFor(Integer.MAX_VALUE, 0.5)).isEqualTo(Duration.ofDays(7));
    assertThat(policy.delayFor(1000, 0.0)).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void exponential_at_retry_count_1000_is_dead_with_the_budget_in_the_reason() {
    ExponentialRetry policy =
        new ExponentialRetry(Duration.ofMinutes(5), 2.0, Duration.ofHours(1), 0.0, 100);

    assertThat(decide(policy, FAILED_AT, 1000))
        .isEqualTo(RetryDecision.dead("retries used up (1000 of 100)"));
  }

  // WINDOW

  @Test
  void window_retries_while_the_window_is_open_at_the_retry_instant() {
    WindowRetry policy = new WindowRetry(Duration.ofMinutes(30), Duration.ZERO, 3);

    RetryDecision decision = decide(policy, Instant.parse("2026-11-29T22:00:00Z"), 0);

    assertThat(decision.retryAt()).contains(Instant.parse("2026-11-29T22:30:00Z"));
    assertThat(decision.reason()).isEqualTo("retry 1 of 3 at 2026-11-29T22:30:00Z (after 30m)");
  }

  @Test
  void window_retries_after_the_window_end_while_still_in_the_grace_period() {
    WindowRetry policy = new WindowRetry(Duration.ofMinutes(30), Duration.ofHours(1), 3);

    assertThat(decide(policy, Instant.parse("2026-11-30T00:20:00Z"), 1).retryAt())
        .contains(Instant.parse("2026-11-30T00:50:00Z"));
    assertThat(decide(policy, Instant.parse("2026-11-30T00:29:59.999Z"), 1).retryAt())
        .contains(Instant.parse("2026-11-30T00:59:59.999Z"));
  }

  @Test
  void window_is_dead_when_the_retry_would_start_exactly_at_end_plus_grace() {
    WindowRetry policy = new WindowRetry(Duration.ofMinutes(30), Duration.ofHours(1), 3);

    assertThat(decide(policy, Instant.parse("2026-11-30T00:30:00Z"), 0))
        .isEqualTo(RetryDecision.dead("retry window closed at 2026-11-30T01:00:00Z"));
  }

  @Test
  void window_without_grace_is_dead_when_the_delay_crosses_the_window_end() {
    WindowRetry policy = new WindowRetry(Duration.ofMinutes(30), Duration.ZERO, 3);

    assertThat(decide(policy, Instant.parse("2026-11-29T23:45:00Z"), 0))
        .isEqualTo(RetryDecision.dead("retry window closed at 2026-11-30T00:00:00Z"));
  }

  // Common rules

  @ParameterizedTest
  @MethodSource("retryingPolicies")
  void every_policy_retries_on_the_last_allowed_retry_and_is_dead_after_it(RetryPolicy policy) {
    Instant early = Instant.parse("2026-11-29T01:00:00Z");

    assertThat(decide(policy, early, 2).isDead()).isFalse();
    assertThat(decide(policy, early, 2).reason()).startsWith("retry 3 of 3 at ");
    assertThat(decide(policy, early, 3)).isEqualTo(RetryDecision.dead("retries used up (3 of 3)"));
  }

  @ParameterizedTest
  @MethodSource("retryingPolicies")
  void every_policy_is_dead_for_a_non_retryable_failure_even_with_retries_left(RetryPolicy policy) {
    assertThat(policy.decide(FAILED_AT, 0, DAY, true, NO_JITTER))
        .isEqualTo(RetryDecision.dead("failure is non-retryable"));
  }

  @Test
  void zero_max_retries_is_dead_on_the_first_failure() {
    assertThat(decide(new ImmediateRetry(0), FAILED_AT, 0))
        .isEqualTo(RetryDecision.dead("retries used up (0 of 0)"));
  }

  @ParameterizedTest
  @MethodSource("retryingPolicies")
  void every_policy_refuses_a_negative_retry_count_or_a_sample_outside_0_to_1(RetryPolicy policy) {
    assertThatThrownBy(() -> decide(policy, FAILED_AT, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retryCount")
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> policy.decide(FAILED_AT, 0, DAY, false, 1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jitterSample")
        .hasMessageContaining("1.5");
    assertThatThrownBy(() -> policy.decide(FAILED_AT, 0, DAY, false, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // Construction

  static Stream<Object[]> invalidPolicies() {
    Duration fiveMin = Duration.ofMinutes(5);
    return Stream.of(
        new Object[] {(Runnable) () -> new ImmediateRetry(-1), "maxRetries", -1},
        new Object[] {(Runnable) () -> new ImmediateRetry(101), "maxRetries", 101},
        new Object[] {(Runnable) () -> new DelayedRetry(List.of(), 3), "delays", List.of()},
        new Object[] {
          (Runnable) () -> new DelayedRetry(List.of(fiveMin, Duration.ZERO), 3),
          "delays[1]",
          Duration.ZERO
        },
        new Object[] {
          (Runnable) () -> new DelayedRetry(List.of(Duration.ofDays(8)), 3),
          "delays[0]",
          Duration.ofDays(8)
        },
        new Object[] {
          (Runnable) () -> new DelayedRetry(List.of(Duration.ofNanos(1_500_000)), 3),
          "delays[0]",
          Duration.ofNanos(1_500_000)
        },
        new Object[] {
          (Runnable) () -> new ExponentialRetry(fiveMin, 1.0, Duration.ofHours(1), 0, 3),
          "multiplier",
          1.0
        },
        new Object[] {
          (Runnable) () -> new ExponentialRetry(fiveMin, 2.0, Duration.ofMinutes(1), 0, 3),
          "cap",
          Duration.ofMinutes(1)
        },
        new Object[] {
          (Runnable) () -> new ExponentialRetry(fiveMin, 2.0, Duration.ofHours(1), 1.5, 3),
          "jitter",
          1.5
        },
        new Object[] {
          (Runnable)
              () -> new ExponentialRetry(Duration.ofMinutes(-5), 2.0, Duration.ofHours(1), 0, 3),
          "initial",
          Duration.ofMinutes(-5)
        },
        new Object[] {
          (Runnable) () -> new WindowRetry(fiveMin, Duration.ofHours(-1), 3),
          "grace",
          Duration.ofHours(-1)
        });
  }

  @ParameterizedTest
  @MethodSource("invalidPolicies")
  void a_policy_record_refuses_a_bad_value_naming_the_field_and_value(
      Runnable construct, String field, Object value) {
    assertThatThrownBy(construct::run)
        .isInstanceOfSatisfying(
            InvalidValueException.class,
            e -> {
              assertThat(e.problem().field()).isEqualTo(field);
              assertThat(e.problem().value()).isEqualTo(value);
            })
        .hasMessageContaining(field);
  }

  @Test
  void a_delayed_policy_keeps_its_own_copy_of_the_delays() {
    List<Duration> delays = new java.util.ArrayList<>(List.of(Duration.ofMinutes(5)));
    DelayedRetry policy = new DelayedRetry(delays, 3);

    delays.add(Duration.ofMinutes(10));

    assertThat(policy.delays()).containsExactly(Duration.ofMinutes(5));
  }
}
