package dev.carillon.model.retry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How many exponential retries fit in an acceptable recovery time: the largest {@code n} such that
 * the waits {@code initial, initial × multiplier, …} of the first {@code n} retries add up to at
 * most {@code recovery}. Each wait is capped at {@code cap}, exactly as {@link ExponentialRetry}
 * computes it without jitter, so {@link #toPolicy()} retries at exactly these waits.
 *
 * <p>Example: recovery 1h, first wait 5m, ×2 gives 3 retries at 5, 10 and 20 minutes (35 minutes in
 * all); a 4th retry would wait another 40 minutes and land at 75 minutes.
 *
 * <p>Why the cumulative rule and not the seed's formula {@code ceil(log(recovery / initial) /
 * log(multiplier))}: that formula, here {@code ceil(log2(60 / 5)) = ceil(3.58) = 4}, finds the
 * first retry whose <em>single</em> wait reaches the recovery time. But the waits happen one after
 * another, so the last retry starts at the <em>sum</em> of all waits: 5 + 10 + 20 + 40 = 75
 * minutes, beyond the hour the owner accepted. The seed's own worked example concludes 3 (it adds
 * the waits up), which is what the sum rule gives. For a multiplier of 2 the sum is about twice the
 * last wait, so the log formula overshoots by roughly one retry.
 *
 * <p>The plan counts waits only; each attempt's own run time comes on top. It never plans more than
 * {@link RetryPolicy#MAX_RETRIES} retries (a small cap with a long recovery would otherwise plan
 * thousands).
 *
 * @param recovery the acceptable time from the first failure to the start of the last retry
 * @param initial the first wait
 * @param multiplier the growth per retry, more than 1 and at most 10
 * @param cap the longest single wait, at least {@code initial}
 */
public record RetryPlan(Duration recovery, Duration initial, double multiplier, Duration cap) {
  public RetryPlan {
    Objects.requireNonNull(recovery, "recovery");
    if (recovery.isNegative() || recovery.isZero()) {
      throw new IllegalArgumentException("recovery must be more than 0: " + recovery);
    }
    RetryRules.require("initial", initial, RetryRules.delay(initial));
    RetryRules.require("multiplier", multiplier, RetryRules.multiplier(multiplier));
    RetryRules.require("cap", cap, RetryRules.delay(cap));
    RetryRules.require("cap", cap, RetryRules.capAtLeastInitial(cap, initial));
  }

  /** A plan whose waits are limited only by {@link RetryPolicy#MAX_DELAY}. */
  public static RetryPlan fit(Duration recovery, Duration initial, double multiplier) {
    return new RetryPlan(recovery, initial, multiplier, RetryPolicy.MAX_DELAY);
  }

  /** The waits of the planned retries, in order; empty when even the first wait is too long. */
  public List<Duration> delays() {
    ExponentialRetry curve = new ExponentialRetry(initial, multiplier, cap, 0.0, 0);
    List<Duration> delays = new ArrayList<>();
    Duration total = Duration.ZERO;
    for (int n = 0; n < RetryPolicy.MAX_RETRIES; n++) {
      Duration next = curve.delayFor(n, 0.5);
      if (total.plus(next).compareTo(recovery) > 0) {
        break;
      }
      total = total.plus(next);
      delays.add(next);
    }
    return List.copyOf(delays);
  }

  /** The number of planned retries. */
  public int retries() {
    return delays().size();
  }

  /** The sum of the planned waits: when the last retry starts, counted from the first failure. */
  public Duration cumulative() {
    return delays().stream().reduce(Duration.ZERO, Duration::plus);
  }

  /** An EXPONENTIAL policy without jitter that waits exactly {@link #delays()}. */
  public ExponentialRetry toPolicy() {
    return new ExponentialRetry(initial, multiplier, cap, 0.0, retries());
  }

  /**
   * A DELAYED policy listing {@link #delays()}.
   *
   * @throws IllegalStateException when no retry fits (DELAYED needs at least one delay)
   */
  public DelayedRetry toDelayedPolicy() {
    List<Duration> delays = delays();
    if (delays.isEmpty()) {
      throw new IllegalStateException(
          "no retry fits: the first wait " + initial + " exceeds the recovery time " + recovery);
    }
    return new DelayedRetry(delays, delays.size());
  }
}
