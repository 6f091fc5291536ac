package dev.carillon.model.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private static final Instant T0 = Instant.parse("2026-03-29T08:00:00Z");

  private static int takeAll(TokenBucket bucket, Instant at) {
    int n = 0;
    while (bucket.tryTake(at)) {
      n++;
    }
    return n;
  }

  private static Instant after(Duration d) {
    return T0.plus(d);
  }

  @Test
  void a_new_bucket_is_full_and_refills_at_its_rate_up_to_its_capacity() {
    TokenBucket b = new TokenBucket(100, 50, T0);
    assertThat(takeAll(b, T0)).isEqualTo(50);
    assertThat(takeAll(b, after(Duration.ofMillis(100)))).isEqualTo(10);
    assertThat(b.available(after(Duration.ofHours(1)))).isEqualTo(50);
    assertThat(b.isFull(after(Duration.ofHours(1)))).isTrue();
  }

  @Test
  void fractions_of_a_token_accumulate_across_calls() {
    TokenBucket b = new TokenBucket(2, 1, T0);
    assertThat(b.tryTake(T0)).isTrue();
    assertThat(b.tryTake(after(Duration.ofMillis(250)))).isFalse();
    assertThat(b.tryTake(after(Duration.ofMillis(500)))).isTrue();
  }

  @Test
  void an_instant_before_the_latest_one_seen_adds_no_tokens() {
    TokenBucket b = new TokenBucket(10, 10, T0);
    assertThat(takeAll(b, T0)).isEqualTo(10);
    assertThat(takeAll(b, T0.minusSeconds(30))).isZero();
    // Counting resumes from the latest instant seen, not from the earlier one.
    assertThat(takeAll(b, after(Duration.ofMillis(500)))).isEqualTo(5);
  }

  @Test
  void reconfiguring_keeps_what_was_used_and_caps_at_the_new_capacity() {
    TokenBucket b = new TokenBucket(10, 10, T0);
    takeAll(b, T0);
    b.reconfigure(1000, 5, T0);
    assertThat(b.available(T0)).isZero();
    assertThat(b.available(after(Duration.ofSeconds(1)))).isEqualTo(5);
    assertThat(b.perSecond()).isEqualTo(1000);
    assertThat(b.capacity()).isEqualTo(5);
  }

  @Test
  void one_seconds_worth_holds_the_rate_and_refills_at_it() {
    TokenBucket b = TokenBucket.oneSecondOf(100, T0);
    assertThat(takeAll(b, T0)).isEqualTo(100);
    assertThat(takeAll(b, after(Duration.ofMillis(250)))).isEqualTo(25);
    // Idle time never stores more than one second's worth.
    assertThat(takeAll(b, after(Duration.ofMinutes(5)))).isEqualTo(100);
  }

  @Test
  void one_seconds_worth_of_a_rate_below_one_per_second_still_holds_a_single_token() {
    TokenBucket b = TokenBucket.oneSecondOf(0.5, T0);
    assertThat(takeAll(b, T0)).isEqualTo(1);
    assertThat(takeAll(b, T0.plusSeconds(1))).isZero();
    assertThat(takeAll(b, T0.plusSeconds(2))).isEqualTo(1);
  }

  @Test
  void a_zero_rate_or_a_capacity_below_one_is_refused_with_its_name_and_value() {
    assertThatThrownBy(() -> new TokenBucket(0, 1, T0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("perSecond must be more than 0: 0.0");
    assertThatThrownBy(() -> new TokenBucket(1, 0.5, T0))
        .hasMessage("capacity must be at least 1: 0.5");
    TokenBucket b = new TokenBucket(1, 1, T0);
    assertThatThrownBy(() -> b.reconfigure(Double.NaN, 1, T0))
        .hasMessage("perSecond must be more than 0: NaN");
    assertThat(b.perSecond()).as("a refused change changes nothing").isEqualTo(1);
  }
}
