package dev.carillon.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A running clock with a skew the test sets: {@code base}'s time plus {@link #skew()}, as on a host
 * whose time service is off. Unlike {@link SettableClock} it moves by itself, and the skew may jump
 * either way at any moment (a host clock that is corrected steps back).
 *
 * <p>Thread-safe.
 */
public final class SkewedClock extends Clock {
  private final Clock base;
  private final AtomicReference<Duration> skew;

  /** {@code base}, skewed by {@code initial}. */
  public SkewedClock(Clock base, Duration initial) {
    this(base, new AtomicReference<>(Objects.requireNonNull(initial, "initial")));
  }

  private SkewedClock(Clock base, AtomicReference<Duration> skew) {
    this.base = Objects.requireNonNull(base, "base");
    this.skew = skew;
  }

  /** Sets the skew: positive runs ahead of {@code base}, negative behind. */
  public void setSkew(Duration to) {
    skew.set(Objects.requireNonNull(to, "to"));
  }

  /** The current skew. */
  public Duration skew() {
    return skew.get();
  }

  @Override
  public Instant instant() {
    return base.instant().plus(skew.get());
  }

  @Override
  public ZoneId getZone() {
    return base.getZone();
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return new SkewedClock(base.withZone(zone), skew);
  }

  @Override
  public String toString() {
    return "SkewedClock[" + base + " " + skew.get() + "]";
  }
}
