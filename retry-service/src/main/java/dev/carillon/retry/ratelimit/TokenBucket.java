package dev.carillon.retry.ratelimit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A token bucket: holds at most {@code capacity} tokens, refilled at {@code perSecond} per second
 * of the given clock, starting full. Taking a token means "one message may go out now".
 *
 * <p>Pure apart from the clock, so tests drive it with a settable clock. A clock that steps
 * backwards adds nothing (and takes nothing away). Thread-safe.
 */
public final class TokenBucket {
  private final Clock clock;
  private double perSecond;
  private double capacity;
  private double tokens;
  private Instant last;

  /**
   * @param perSecond refill rate, more than 0
   * @param capacity the most tokens held, at least 1
   * @param clock the time source for refills
   */
  public TokenBucket(double perSecond, double capacity, Clock clock) {
    check(perSecond, capacity);
    this.clock = Objects.requireNonNull(clock, "clock");
    this.perSecond = perSecond;
    this.capacity = capacity;
    this.tokens = capacity;
    this.last = clock.instant();
  }

  private static void check(double perSecond, double capacity) {
    if (!(perSecond > 0)) {
      throw new IllegalArgumentException("perSecond must be more than 0: " + perSecond);
    }
    if (!(capacity >= 1)) {
      throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
    }
  }

  /** Takes one token if there is one. */
  public synchronized boolean tryAcquire() {
    refill();
    if (tokens >= 1.0) {
      tokens -= 1.0;
      return true;
    }
    return false;
  }

  /** Whole tokens available now. */
  public synchronized int available() {
    refill();
    return (int) Math.floor(tokens);
  }

  /** Whether the bucket is full, i.e. has been idle long enough to forget. */
  public synchronized boolean isFull() {
    refill();
    return tokens >= capacity;
  }

  /**
   * Changes rate and capacity without resetting what was used: tokens beyond the new capacity are
   * dropped, the rest stay.
   */
  public synchronized void reconfigure(double newPerSecond, double newCapacity) {
    check(newPerSecond, newCapacity);
    refill();
    perSecond = newPerSecond;
    capacity = newCapacity;
    tokens = Math.min(tokens, capacity);
  }

  private void refill() {
    Instant now = clock.instant();
    if (now.isAfter(last)) {
      double seconds = Duration.between(last, now).toNanos() / 1e9;
      tokens = Math.min(capacity, tokens + seconds * perSecond);
      last = now;
    }
  }
}
