package dev.carillon.model.retry;

import dev.carillon.model.Durations;
import dev.carillon.model.InvalidValueException;
import dev.carillon.model.task.Problem;
import java.time.Duration;
import java.util.Optional;

/**
 * The value rules shared by the policy records (which throw) and the spec reader (which collects
 * every problem with its position), so that both say the same thing. Each rule returns what is
 * wrong with a value, or empty.
 */
public final class RetryRules {
  static final double MAX_MULTIPLIER = 10.0;

  private RetryRules() {}

  public static Optional<String> maxRetries(int value) {
    return value >= 0 && value <= RetryPolicy.MAX_RETRIES
        ? Optional.empty()
        : Optional.of("must be between 0 and " + RetryPolicy.MAX_RETRIES);
  }

  /** A delay: more than zero, at most {@link RetryPolicy#MAX_DELAY}, whole milliseconds. */
  public static Optional<String> delay(Duration value) {
    if (value == null) {
      return Optional.of("is required");
    }
    if (value.isNegative() || value.isZero() || value.compareTo(RetryPolicy.MAX_DELAY) > 0) {
      return Optional.of(
          "must be more than 0 and at most " + Durations.format(RetryPolicy.MAX_DELAY));
    }
    return wholeMillis(value);
  }

  /** A grace period: zero allowed, otherwise like a delay. */
  public static Optional<String> grace(Duration value) {
    if (value == null) {
      return Optional.of("is required");
    }
    if (value.isNegative() || value.compareTo(RetryPolicy.MAX_DELAY) > 0) {
      return Optional.of("must be between 0 and " + Durations.format(RetryPolicy.MAX_DELAY));
    }
    return wholeMillis(value);
  }

  // The short form (and so toSpec) cannot express less than a millisecond.
  private static Optional<String> wholeMillis(Duration value) {
    return value.getNano() % 1_000_000 == 0
        ? Optional.empty()
        : Optional.of("must be a whole number of milliseconds");
  }

  public static Optional<String> multiplier(double value) {
    return value > 1.0 && value <= MAX_MULTIPLIER
        ? Optional.empty()
        : Optional.of("must be more than 1 and at most " + (int) MAX_MULTIPLIER);
  }

  public static Optional<String> jitter(double value) {
    return value >= 0.0 && value <= 1.0 ? Optional.empty() : Optional.of("must be between 0 and 1");
  }

  public static Optional<String> capAtLeastInitial(Duration cap, Duration initial) {
    return cap.compareTo(initial) >= 0
        ? Optional.empty()
        : Optional.of("must be at least initial (" + Durations.format(initial) + ")");
  }

  /** Throws the problem, if any; used by compact constructors. */
  static void require(String field, Object value, Optional<String> problem) {
    problem.ifPresent(
        message -> {
          throw new InvalidValueException(new Problem(field, value, message));
        });
  }
}
