package dev.carillon.retry.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.tuning.RateLimitSettings;
import dev.carillon.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private final SettableClock clock = new SettableClock(Instant.parse("2026-03-29T08:00:00Z"));

  private static int drain(TokenBucket b) {
    int n = 0;
    while (b.tryAcquire()) {
      n++;
    }
    return n;
  }

  @Test
  void a_new_bucket_is_full_and_refills_at_its_rate_up_to_its_capacity() {
    TokenBucket b = new TokenBucket(100, 50, clock);
    assertThat(drain(b)).isEqualTo(50);
    clock.advance(Duration.ofMillis(100));
    assertThat(drain(b)).isEqualTo(10);
    clock.advance(Duration.ofHours(1));
    assertThat(b.available()).isEqualTo(50);
  }

  @Test
  void fractions_of_a_token_accumulate_across_calls() {
    TokenBucket b = new TokenBucket(2, 1, clock);
    assertThat(b.tryAcquire()).isTrue();
    clock.advance(Duration.ofMillis(250));
    assertThat(b.tryAcquire()).isFalse();
    clock.advance(Duration.ofMillis(250));
    assertThat(b.tryAcquire()).isTrue();
  }

  @Test
  void reconfiguring_keeps_what_was_used_and_caps_at_the_new_capacity() {
    TokenBucket b = new TokenBucket(10, 10, clock);
    drain(b);
    b.reconfigure(1000, 5);
    assertThat(b.available()).isZero();
    clock.advance(Duration.ofSeconds(1));
    assertThat(b.available()).isEqualTo(5);
  }

  @Test
  void a_zero_rate_or_capacity_is_refused_with_its_name() {
    assertThatThrownBy(() -> new TokenBucket(0, 1, clock)).hasMessageContaining("perSecond");
    assertThatThrownBy(() -> new TokenBucket(1, 0.5, clock)).hasMessageContaining("capacity");
  }

  @Test
  void the_limiter_holds_back_per_task_globally_and_per_scan_and_a_refusal_takes_nothing() {
    RepublishLimiter limiter = new RepublishLimiter(new RateLimitSettings(5, 5, 2, 4), clock);
    ScanBudget budget = new ScanBudget(4);
    assertThat(limiter.admit("a", budget)).isEqualTo(RepublishLimiter.Verdict.GRANTED);
    assertThat(limiter.admit("a", budget)).isEqualTo(RepublishLimiter.Verdict.GRANTED);
    assertThat(limiter.admit("a", budget)).isEqualTo(RepublishLimiter.Verdict.HELD_TASK);
    assertThat(limiter.globalAvailable()).isEqualTo(3);
    assertThat(limiter.admit("b", budget)).isEqualTo(RepublishLimiter.Verdict.GRANTED);
    assertThat(limiter.admit("c", budget)).isEqualTo(RepublishLimiter.Verdict.GRANTED);
    assertThat(limiter.admit("d", budget)).isEqualTo(RepublishLimiter.Verdict.HELD_SCAN_MAX);
    ScanBudget next = new ScanBudget(4);
    assertThat(limiter.admit("d", next)).isEqualTo(RepublishLimiter.Verdict.GRANTED);
    assertThat(limiter.admit("e", next)).isEqualTo(RepublishLimiter.Verdict.HELD_GLOBAL);
    assertThat(next.left()).isEqualTo(3);
    clock.advance(Duration.ofSeconds(1));
    assertThat(limiter.admit("e", next)).isEqualTo(RepublishLimiter.Verdict.GRANTED);
  }
}
