package dev.carillon.model.retry;

import dev.carillon.model.schedule.Window;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * EXPONENTIAL: waits that grow by a factor per retry, capped, with optional jitter.
 *
 * <p>The wait before retry {@code n + 1} (where {@code n = retryCount}) is {@link
 * ExponentialBackoff}'s, with {@code cap} as its maximum: the exponent is pinned where the cap is
 * reached, and with {@code jitter = 0} (or {@code sample = 0.5}) the waits are exact. Delays are
 * whole milliseconds.
 *
 * @param initial the first wait, more than 0 and at most {@link RetryPolicy#MAX_DELAY}
 * @param multiplier the growth per retry, more than 1 and at most 10
 * @param cap the longest wait, at least {@code initial} and at most {@link RetryPolicy#MAX_DELAY}
 * @param jitter the relative spread in [0, 1]; 0.2 spreads each wait over ±20%
 * @param maxRetries retries allowed after the first attempt, 0..{@value RetryPolicy#MAX_RETRIES}
 */
public record ExponentialRetry(
    Duration initial, double multiplier, Duration cap, double jitter, int maxRetries)
    implements RetryPolicy {

  /** First wait used when a spec names none (the seed's 5 minutes). */
  public static final Duration DEFAULT_INITIAL = Duration.ofMinutes(5);

  /** Growth used when a spec names none. */
  public static final double DEFAULT_MULTIPLIER = 2.0;

  /** Cap used when a spec names none: only the absolute limit. */
  public static final Duration DEFAULT_CAP = RetryPolicy.MAX_DELAY;

  /** Jitter used when a spec names none: exact, predictable instants. */
  public static final double DEFAULT_JITTER = 0.0;

  public ExponentialRetry {
    RetryRules.require("initial", initial, RetryRules.delay(initial));
    RetryRules.require("multiplier", multiplier, RetryRules.multiplier(multiplier));
    RetryRules.require("cap", cap, RetryRules.delay(cap));
    RetryRules.require("cap", cap, RetryRules.capAtLeastInitial(cap, initial));
    RetryRules.require("jitter", jitter, RetryRules.jitter(jitter));
    RetryRules.require("maxRetries", maxRetries, RetryRules.maxRetries(maxRetries));
  }

  @Override
  public String kind() {
    return "EXPONENTIAL";
  }

  /**
   * The wait before retry {@code retryCount + 1}, by the formula above.
   *
   * @param retryCount retries already consumed; any non-negative value, however large
   * @param jitterSample a uniform sample in [0, 1]
   */
  public Duration delayFor(int retryCount, double jitterSample) {
    return backoff().delay(retryCount, jitterSample);
  }

  /** The waits of every allowed retry without jitter, e.g. 5m, 10m, 20m. */
  public List<Duration> delays() {
    ExponentialBackoff backoff = backoff();
    List<Duration> out = new ArrayList<>(maxRetries);
    for (int n = 0; n < maxRetries; n++) {
      out.add(backoff.delay(n));
    }
    return List.copyOf(out);
  }

  /** This policy's waits as a backoff (its cap is the backoff's maximum). */
  public ExponentialBackoff backoff() {
    return new ExponentialBackoff(initial, multiplier, cap, jitter);
  }

  @Override
  public RetryDecision decide(
      Instant failedAt,
      int retryCount,
      Window window,
      boolean nonRetryableFailure,
      double jitterSample) {
    Decisions.checkArguments(failedAt, retryCount, jitterSample);
    return Decisions.refusal(retryCount, maxRetries, nonRetryableFailure)
        .orElseGet(
            () ->
                Decisions.retry(
                    failedAt, retryCount, maxRetries, delayFor(retryCount, jitterSample)));
  }
}
