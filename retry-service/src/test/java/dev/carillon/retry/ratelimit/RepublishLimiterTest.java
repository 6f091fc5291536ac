package dev.carillon.retry.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.tuning.RateLimitSettings;
import dev.carillon.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RepublishLimiterTest {
  private final SettableClock clock = new SettableClock(Instant.parse("2026-03-29T08:00:00Z"));

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
