package dev.carillon.model.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ExponentialBackoffTest {

  @Test
  void without_jitter_the_waits_double_from_the_initial_one_and_stop_at_the_maximum() {
    ExponentialBackoff backoff =
        ExponentialBackoff.doubling(Duration.ofMillis(50), Duration.ofSeconds(2));

    assertThat(IntStream.range(0, 8).mapToObj(backoff::delay))
        .containsExactly(
            Duration.ofMillis(50),
            Duration.ofMillis(100),
            Duration.ofMillis(200),
            Duration.ofMillis(400),
            Duration.ofMillis(800),
            Duration.ofMillis(1600),
            Duration.ofSeconds(2),
            Duration.ofSeconds(2));
  }

  @Test
  void a_negative_retry_count_waits_the_initial_wait() {
    ExponentialBackoff backoff =
        ExponentialBackoff.doubling(Duration.ofMillis(500), Duration.ofMinutes(1));

    assertThat(backoff.delay(-3)).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void the_exponent_is_pinned_so_a_huge_retry_count_gives_exactly_the_maximum() {
    ExponentialBackoff backoff =
        new ExponentialBackoff(Duration.ofMillis(1), 10.0, Duration.ofDays(7), 0.0);

    assertThat(backoff.delay(Integer.MAX_VALUE)).isEqualTo(Duration.ofDays(7));
    assertThat(backoff.delay(1000, 0.0)).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void a_fractional_multiplier_gives_whole_millisecond_waits() {
    ExponentialBackoff backoff =
        new ExponentialBackoff(Duration.ofMinutes(5), 1.5, Duration.ofHours(1), 0.0);

    assertThat(backoff.delay(1)).isEqualTo(Duration.ofSeconds(450));
    assertThat(backoff.delay(2)).isEqualTo(Duration.ofSeconds(675));
  }

  @Test
  void jitter_spreads_the_wait_by_its_fraction_and_the_centre_sample_is_exact() {
    ExponentialBackoff backoff =
        new ExponentialBackoff(Duration.ofMinutes(10), 2.0, Duration.ofHours(1), 0.2);

    assertThat(backoff.delay(0, 0.0)).isEqualTo(Duration.ofMinutes(8));
    assertThat(backoff.delay(0, 0.5)).isEqualTo(Duration.ofMinutes(10)).isEqualTo(backoff.delay(0));
    assertThat(backoff.delay(0, 1.0)).isEqualTo(Duration.ofMinutes(12));
  }

  @Test
  void jitter_never_takes_the_wait_above_the_maximum_or_below_zero() {
    ExponentialBackoff backoff =
        new ExponentialBackoff(Duration.ofMinutes(10), 2.0, Duration.ofMinutes(40), 1.0);

    assertThat(backoff.delay(2, 1.0)).isEqualTo(Duration.ofMinutes(40));
    assertThat(backoff.delay(0, 0.0)).isEqualTo(Duration.ZERO);
  }

  @Test
  void zero_jitter_ignores_the_sample() {
    ExponentialBackoff backoff =
        ExponentialBackoff.doubling(Duration.ofMillis(500), Duration.ofMinutes(1));

    assertThat(backoff.delay(2, 0.0))
        .isEqualTo(backoff.delay(2, 1.0))
        .isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void invalid_settings_and_samples_are_refused_naming_the_field_and_value() {
    assertThatThrownBy(() -> new ExponentialBackoff(Duration.ZERO, 2.0, Duration.ofSeconds(1), 0))
        .hasMessage("initial must be at least 1 ms, was PT0S");
    assertThatThrownBy(
            () -> new ExponentialBackoff(Duration.ofMillis(1), 1.0, Duration.ofSeconds(1), 0))
        .hasMessage("multiplier must be more than 1, was 1.0");
    assertThatThrownBy(
            () -> new ExponentialBackoff(Duration.ofSeconds(2), 2.0, Duration.ofSeconds(1), 0))
        .hasMessage("max must be at least initial (PT2S), was PT1S");
    assertThatThrownBy(
            () -> new ExponentialBackoff(Duration.ofMillis(1), 2.0, Duration.ofSeconds(1), 1.5))
        .hasMessage("jitter must be between 0 and 1, was 1.5");
    assertThatThrownBy(
            () ->
                ExponentialBackoff.doubling(Duration.ofMillis(1), Duration.ofSeconds(1))
                    .delay(0, -0.1))
        .hasMessage("jitterSample must be between 0 and 1, was -0.1");
  }
}
