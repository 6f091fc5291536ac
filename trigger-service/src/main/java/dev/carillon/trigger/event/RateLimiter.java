package dev.carillon.trigger.event;

import java.time.Duration;
import java.time.Instant;

/**
 * A token bucket refilled at {@code rate} tokens per second on the given clock's instants, holding
 * at most one second's worth (at least one token). Not thread-safe; owned by the event consumer.
 */
final class RateLimiter {
  private final double rate;
  private final double capacity;
  private double tokens;
  private Instant last;

  RateLimiter(double rate, Instant now) {
    this.rate = rate;
    this.capacity = Math.max(1, rate);
    this.tokens = capacity;
    this.last = now;
  }

  double rate() {
    return rate;
  }

  /** Takes one token if there is one at {@code now}. */
  boolean tryTake(Instant now) {
    if (now.isAfter(last)) {
      double seconds = Duration.between(last, now).toNanos() / 1e9;
      tokens = Math.min(capacity, tokens + seconds * rate);
      last = now;
    }
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }
}
