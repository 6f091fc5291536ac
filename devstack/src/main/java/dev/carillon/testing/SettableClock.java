package dev.carillon.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} that tests move by hand, and only forward.
 *
 * <p>Time never moves by itself: {@link #instant()} returns the same value until {@link
 * #set(Instant)} or {@link #advance(Duration)} changes it. Moving backwards is refused with an
 * {@link IllegalArgumentException}, because production clocks that Carillon depends on (lease
 * expiry, backoff, trigger cursors) are assumed monotonic, and a test that rewinds time tests
 * nothing real.
 *
 * <p>The zone is UTC. {@link #withZone(ZoneId)} returns a view in another zone that shares this
 * clock's time, so moving either moves both.
 *
 * <p>Thread-safe: reads and moves are atomic; concurrent moves apply one after the other.
 */
public final class SettableClock extends Clock {
  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  /**
   * A clock that reads {@code start} until it is moved.
   *
   * @param start the initial instant; tests should pass a fixed, meaningful instant, not {@code
   *     Instant.now()}
   */
  public SettableClock(Instant start) {
    this(new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
  }

  private SettableClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = zone;
  }

  /**
   * Moves the clock to {@code instant}; setting the current instant again is allowed.
   *
   * @throws IllegalArgumentException if {@code instant} is before the current instant
   */
  public void set(Instant instant) {
    Objects.requireNonNull(instant, "instant");
    now.getAndUpdate(
        current -> {
          if (instant.isBefore(current)) {
            throw new IllegalArgumentException(
                "SettableClock only moves forward: cannot set "
                    + instant
                    + ", which is before the current "
                    + current);
          }
          return instant;
        });
  }

  /**
   * Moves the clock forward by {@code amount} and returns the new instant.
   *
   * @throws IllegalArgumentException if {@code amount} is negative
   */
  public Instant advance(Duration amount) {
    Objects.requireNonNull(amount, "amount");
    if (amount.isNegative()) {
      throw new IllegalArgumentException(
          "SettableClock only moves forward: cannot advance by " + amount);
    }
    return now.updateAndGet(current -> current.plus(amount));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  @Override
  public Clock withZone(ZoneId newZone) {
    Objects.requireNonNull(newZone, "zone");
    return newZone.equals(zone) ? this : new SettableClock(now, newZone);
  }

  @Override
  public String toString() {
    return "SettableClock[" + now.get() + ", " + zone + "]";
  }
}
