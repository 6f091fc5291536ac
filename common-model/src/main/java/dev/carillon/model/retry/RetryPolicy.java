package dev.carillon.model.retry;

import dev.carillon.model.schedule.Window;
import java.time.Duration;
import java.time.Instant;

/**
 * When, if ever, a failed instance runs again. Implementations are immutable records, validated on
 * construction ({@link RetryRules}); their text form (a task spec's {@code retry} mapping, JSON) is
 * read and written in {@code dev.carillon.spec}.
 *
 * <p>Every policy follows the same order of rules in {@link #decide}: a non-retryable failure is
 * dead, then a used-up retry budget is dead, then the policy picks the retry instant (and WINDOW
 * may still refuse it). All delays count from {@code failedAt}, never from "now".
 */
public sealed interface RetryPolicy
    permits NoRetry, ImmediateRetry, DelayedRetry, ExponentialRetry, WindowRetry {

  /** Default maximum number of retries for the retrying policies. */
  int DEFAULT_MAX_RETRIES = 3;

  /** Largest accepted {@link #maxRetries()}. */
  int MAX_RETRIES = 100;

  /** Largest accepted delay (and cap); anything longer is almost certainly a typo. */
  Duration MAX_DELAY = Duration.ofDays(7);

  /** The default policy: never retry. */
  static RetryPolicy none() {
    return NoRetry.INSTANCE;
  }

  /** NONE, IMMEDIATE, DELAYED, EXPONENTIAL or WINDOW. */
  String kind();

  /** Retries allowed after the first attempt (0 for NONE). */
  int maxRetries();

  /**
   * Decides what happens to an instance that failed at {@code failedAt}. Pure: reads no clock.
   *
   * @param failedAt when the failed attempt finished (database time)
   * @param retryCount retries already consumed (0 after the first attempt failed); not negative
   * @param window the instance's business window
   * @param nonRetryableFailure the agent threw {@code NonRetryableException}
   * @param jitterSample a uniform sample in [0, 1]; 0.5 means "no jitter offset"
   * @throws IllegalArgumentException if {@code retryCount} is negative or {@code jitterSample} is
   *     outside [0, 1]
   */
  RetryDecision decide(
      Instant failedAt,
      int retryCount,
      Window window,
      boolean nonRetryableFailure,
      double jitterSample);
}
