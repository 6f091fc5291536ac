package dev.carillon.loop;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * When the rounds of a {@link PeriodicLoop} run: the wait before each round. Pure; an aligned pace
 * reads the clock it is given.
 */
@FunctionalInterface
public interface Pace {
  /**
   * The wait before the next round.
   *
   * @param first whether it is the first round since the loop started
   * @param afterFailure whether the previous round threw
   * @return zero or more
   */
  Duration before(boolean first, boolean afterFailure);

  /** The first round at once, then {@code pause} after every round, failed or not. */
  static Pace fixedDelay(Duration pause) {
    return fixedDelay(Duration.ZERO, pause, pause);
  }

  /**
   * {@code initial} before the first round, then {@code pause} after a round that succeeded and
   * {@code afterFailure} after one that threw (so that a down database does not become a hot loop).
   *
   * @throws IllegalArgumentException when a wait is negative
   */
  static Pace fixedDelay(Duration initial, Duration pause, Duration afterFailure) {
    requireNotNegative("initial", initial);
    requireNotNegative("pause", pause);
    requireNotNegative("afterFailure", afterFailure);
    return new Pace() {
      @Override
      public Duration before(boolean first, boolean failed) {
        return first ? initial : failed ? afterFailure : pause;
      }

      @Override
      public String toString() {
        return "every " + pause;
      }
    };
  }

  /**
   * Each round at the next whole multiple of {@code interval} on {@code clock} (every wall-clock
   * second for one second), so that a fire time at hh:mm:ss is seen within a few milliseconds of
   * it. A round that ends exactly on a multiple waits a whole interval.
   *
   * @throws IllegalArgumentException when the interval is shorter than a millisecond
   */
  static Pace alignedTo(Duration interval, Clock clock) {
    return alignedTo(interval, Duration.ZERO, clock);
  }

  /**
   * As {@link #alignedTo(Duration, Clock)}, waking {@code ahead} before each multiple of {@code
   * interval} (the trigger's {@code trigger.create-ahead}: ticks at hh:mm:ss.800 for the fire times
   * of hh:mm:ss+1).
   *
   * @param ahead at least zero, less than {@code interval}
   */
  static Pace alignedTo(Duration interval, Duration ahead, Clock clock) {
    Objects.requireNonNull(clock, "clock");
    long intervalMs = Objects.requireNonNull(interval, "interval").toMillis();
    if (intervalMs < 1) {
      throw new IllegalArgumentException("interval must be at least 1 ms, was " + interval);
    }
    long aheadMs = Objects.requireNonNull(ahead, "ahead").toMillis();
    if (aheadMs < 0 || aheadMs >= intervalMs) {
      throw new IllegalArgumentException(
          "ahead must be at least zero and less than the interval " + interval + ", was " + ahead);
    }
    return new Pace() {
      @Override
      public Duration before(boolean first, boolean failed) {
        return Duration.ofMillis(intervalMs - Math.floorMod(clock.millis() + aheadMs, intervalMs));
      }

      @Override
      public String toString() {
        return "every " + interval + ", aligned" + (aheadMs == 0 ? "" : ", " + ahead + " ahead");
      }
    };
  }

  private static void requireNotNegative(String field, Duration value) {
    if (Objects.requireNonNull(value, field).isNegative()) {
      throw new IllegalArgumentException(field + " must not be negative, was " + value);
    }
  }
}
