package dev.carillon.model.retry;

import java.time.Duration;
import java.util.Objects;

/**
 * Waits that grow by a factor per retry, up to a maximum, with optional jitter: the one backoff
 * formula of the code base (retry policies, end writes, alert webhooks).
 *
 * <p>The wait before retry {@code n + 1} (where {@code n} retries were already made) is
 *
 * <pre>
 *   e     = min(n, ceil(log(max / initial) / log(multiplier)))   // exponent, pinned
 *   base  = min(max, initial × multiplier^e)
 *   wait  = clamp(base × (1 + jitter × (2 × sample − 1)), 0, max)
 * </pre>
 *
 * Pinning the exponent at the first value that reaches the maximum keeps {@code multiplier^e}
 * finite for any retry count, as Kafka's {@code ExponentialBackoff} and Curator's {@code
 * ExponentialBackoffRetry} do. The jitter is a separate factor: with {@code jitter = 0}, or with
 * {@code sample = 0.5}, it is exactly 1, so {@link #delay(int)} and tests see exact values. Waits
 * are whole milliseconds (rounded). Pure: the caller supplies the jitter sample.
 *
 * @param initial the first wait, at least 1 ms
 * @param multiplier the growth per retry, more than 1
 * @param max the longest wait, at least {@code initial}
 * @param jitter the relative spread in [0, 1]; 0.2 spreads each wait over ±20%
 */
public record ExponentialBackoff(Duration initial, double multiplier, Duration max, double jitter) {
  public ExponentialBackoff {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.toMillis() < 1) {
      throw new IllegalArgumentException("initial must be at least 1 ms, was " + initial);
    }
    if (!(multiplier > 1.0) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException("multiplier must be more than 1, was " + multiplier);
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "max must be at least initial (" + initial + "), was " + max);
    }
    if (!(jitter >= 0.0 && jitter <= 1.0)) {
      throw new IllegalArgumentException("jitter must be between 0 and 1, was " + jitter);
    }
  }

  /** Doubling from {@code initial} up to {@code max}, without jitter. */
  public static ExponentialBackoff doubling(Duration initial, Duration max) {
    return new ExponentialBackoff(initial, 2.0, max, 0.0);
  }

  /**
   * The wait before retry {@code retries + 1} without jitter (the centre of the spread).
   *
   * @param retries retries already made; any value, a negative one counts as 0
   */
  public Duration delay(int retries) {
    return Duration.ofMillis(Math.round(baseMillis(retries)));
  }

  /**
   * The wait before retry {@code retries + 1}, by the formula above.
   *
   * @param retries retries already made; any value, a negative one counts as 0
   * @param jitterSample a uniform sample in [0, 1]
   * @throws IllegalArgumentException when the sample is outside [0, 1]
   */
  public Duration delay(int retries, double jitterSample) {
    if (!(jitterSample >= 0.0 && jitterSample <= 1.0)) {
      throw new IllegalArgumentException(
          "jitterSample must be between 0 and 1, was " + jitterSample);
    }
    double jittered = baseMillis(retries) * (1.0 + jitter * (2.0 * jitterSample - 1.0));
    return Duration.ofMillis(Math.round(Math.max(0.0, Math.min(max.toMillis(), jittered))));
  }

  private double baseMillis(int retries) {
    double initialMs = initial.toMillis();
    double maxMs = max.toMillis();
    int exponent = Math.min(Math.max(retries, 0), maxExponent(initialMs, maxMs));
    return Math.min(maxMs, initialMs * Math.pow(multiplier, exponent));
  }

  private int maxExponent(double initialMs, double maxMs) {
    double e = Math.ceil(Math.log(maxMs / initialMs) / Math.log(multiplier));
    return (int) Math.min(Integer.MAX_VALUE, Math.max(0.0, e));
  }
}
