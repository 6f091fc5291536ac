package dev.carillon.control.auth;

import java.time.Duration;
import java.time.Instant;

/**
 * A token bucket: at most {@code capacity} tokens, refilled at {@code perSecond}, starting full.
 * Pure: every call takes the instant it is asked at; an instant earlier than the latest seen adds
 * nothing.
 *
 * <p>The same rules as the retry service's and the event trigger's buckets, kept here until the one
 * shared bucket of {@code common-model} lands (issue 23); then this class goes.
 *
 * <p>Not thread-safe: {@link RequestRateLimiter} serializes the calls per bucket.
 */
final class TokenBucket {
  private final double perSecond;
  private final double capacity;
  private double tokens;
  private Instant last;

  TokenBucket(double perSecond, double capacity, Instant now) {
    if (!(perSecond > 0) || !(capacity >= 1)) {
      throw new IllegalArgumentException(
          "perSecond must be more than 0 and capacity at least 1: " + perSecond + ", " + capacity);
    }
    this.perSecond = perSecond;
    this.capacity = capacity;
    this.tokens = capacity;
    this.last = now;
  }

  /** Takes one token if there is one at {@code now}. */
  boolean tryTake(Instant now) {
    refill(now);
    if (tokens >= 1.0) {
      tokens -= 1.0;
      return true;
    }
    return false;
  }

  /** How long until one token is available, from {@code now}. */
  Duration untilNext(Instant now) {
    refill(now);
    double missing = Math.max(0, 1.0 - tokens);
    return Duration.ofNanos((long) Math.ceil(missing / perSecond * 1e9));
  }

  private void refill(Instant now) {
    if (now.isAfter(last)) {
      double seconds = Duration.between(last, now).toNanos() / 1e9;
      tokens = Math.min(capacity, tokens + seconds * perSecond);
      last = now;
    }
  }
}
