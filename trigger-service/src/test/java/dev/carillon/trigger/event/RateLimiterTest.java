package dev.carillon.trigger.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RateLimiterTest {
  private static final Instant T0 = Instant.parse("2026-11-30T08:00:00Z");

  private static int takeAll(RateLimiter limiter, Instant at) {
    int n = 0;
    while (limiter.tryTake(at)) {
      n++;
    }
    return n;
  }

  @Test
  void a_full_bucket_allows_one_seconds_worth_then_refills_at_the_rate() {
    RateLimiter limiter = new RateLimiter(100, T0);
    assertThat(takeAll(limiter, T0)).isEqualTo(100);
    assertThat(limiter.tryTake(T0)).isFalse();
    assertThat(takeAll(limiter, T0.plus(Duration.ofMillis(250)))).isEqualTo(25);
    // Idle time never stores more than one second's worth.
    assertThat(takeAll(limiter, T0.plus(Duration.ofMinutes(5)))).isEqualTo(100);
  }

  @Test
  void a_rate_below_one_per_second_still_allows_a_single_event() {
    RateLimiter limiter = new RateLimiter(0.5, T0);
    assertThat(takeAll(limiter, T0)).isEqualTo(1);
    assertThat(takeAll(limiter, T0.plusSeconds(1))).isZero();
    assertThat(takeAll(limiter, T0.plusSeconds(2))).isEqualTo(1);
  }

  @Test
  void a_clock_that_steps_back_adds_no_tokens() {
    RateLimiter limiter = new RateLimiter(10, T0);
    assertThat(takeAll(limiter, T0)).isEqualTo(10);
    assertThat(takeAll(limiter, T0.minusSeconds(30))).isZero();
  }
}
