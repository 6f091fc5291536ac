package dev.carillon.model.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A token bucket: holds at most {@code capacity} tokens, refilled at {@code perSecond} tokens per
 * second, starting full. Taking a token means "one more may go out now".
 *
 * <p>Pure: every method takes the instant it is asked at, from the caller's clock; the bucket never
 * reads a clock itself. Refills count from the latest instant seen, so an instant earlier than that
 * (a clock that stepped back) adds nothing and takes nothing away. Fractions of a token accumulate
 * across calls.
 *
 * <p>Not thread-safe: its owner serializes the calls (the republish limiter under its lock, the
 * event consumer on its thread).
 */
public final class TokenBucket {
  private double perSecond;
  private double capacity;
  private double tokens;
  private Instant last;

  /**
   * A full bucket.
   *
   * @param perSecond refill rate, more than 0
   * @param capacity the most tokens held, at least 1
   * @param now the instant the bucket starts at
   * @throws IllegalArgumentException naming the field when a value is out of range
   */
  public TokenBucket(double perSecond, double capacity, Instant now) {
    check(perSecond, capacity);
    this.perSecond = perSecond;
    this.capacity = capacity;
    this.tokens = capacity;
    this.last = Objects.requireNonNull(now, "now");
  }

  /**
   * A full bucket that holds one second's worth of its rate, but at least one token, so that a rate
   * below one per second still lets a single one through.
   */
  public static TokenBucket oneSecondOf(double perSecond, Instant now) {
    return new TokenBucket(perSecond, Math.max(1.0, perSecond), now);
  }

  private static void check(double perSecond, double capacity) {
    if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
      throw new IllegalArgumentException("perSecond must be more than 0: " + perSecond);
    }
    if (!(capacity >= 1) || Double.isInfinite(capacity)) {
      throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
    }
  }

  /** The refill rate in tokens per second. */
  public double perSecond() {
    return perSecond;
  }

  /** The most tokens held. */
  public double capacity() {
    return capacity;
  }

  /** Takes one token if there is one at {@code now}. */
  public boolean tryTake(Instant now) {
    refill(now);
    if (tokens >= 1.0) {
      tokens -= 1.0;
      return true;
    }
    return false;
  }

  /** Whole tokens available at {@code now}. */
  public int available(Instant now) {
    refill(now);
    return (int) Math.floor(tokens);
  }

  /** Whether the bucket is full at {@code now}, i.e. has been idle long enough to forget. */
  public boolean isFull(Instant now) {
    refill(now);
    return tokens >= capacity;
  }

  /**
   * Changes rate and capacity at {@code now} without resetting what was used: tokens beyond the new
   * capacity are dropped, the rest stay.
   */
  public void reconfigure(double newPerSecond, double newCapacity, Instant now) {
    check(newPerSecond, newCapacity);
    refill(now);
    perSecond = newPerSecond;
    capacity = newCapacity;
    tokens = Math.min(tokens, capacity);
  }

  private void refill(Instant now) {
    if (now.isAfter(last)) {
      double seconds = Duration.between(last, now).toNanos() / 1e9;
      tokens = Math.min(capacity, tokens + seconds * perSecond);
      last = now;
    }
  }
}
