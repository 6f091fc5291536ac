package dev.carillon.model.retry;

import dev.carillon.model.schedule.Window;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * WINDOW: retry after a fixed delay, but only while the business window (plus a grace period) is
 * still open at the retry instant. A daily report retried the next morning is worthless; once the
 * window has closed the instance is dead with {@code retry window closed at <end + grace>}.
 *
 * <p>The window end is exclusive, so a retry that would start exactly at {@code end + grace} is
 * refused.
 *
 * @param delay the wait before each retry, more than 0 and at most {@link RetryPolicy#MAX_DELAY}
 * @param grace how long after the window's end a retry may still start, 0 or more
 * @param maxRetries retries allowed after the first attempt, 0..{@value RetryPolicy#MAX_RETRIES}
 */
public record WindowRetry(Duration delay, Duration grace, int maxRetries) implements RetryPolicy {
  /** Delay used when a spec names none. */
  public static final Duration DEFAULT_DELAY = Duration.ofMinutes(5);

  public WindowRetry {
    RetryRules.require("delay", delay, RetryRules.delay(delay));
    RetryRules.require("grace", grace, RetryRules.grace(grace));
    RetryRules.require("maxRetries", maxRetries, RetryRules.maxRetries(maxRetries));
  }

  @Override
  public String kind() {
    return "WINDOW";
  }

  /** The last instant (exclusive) at which a retry of {@code window} may start. */
  public Instant closesAt(Window window) {
    return window.end().plus(grace);
  }

  @Override
  public RetryDecision decide(
      Instant failedAt,
      int retryCount,
      Window window,
      boolean nonRetryableFailure,
      double jitterSample) {
    Decisions.checkArguments(failedAt, retryCount, jitterSample);
    Objects.requireNonNull(window, "window");
    return Decisions.refusal(retryCount, maxRetries, nonRetryableFailure)
        .orElseGet(
            () -> {
              Instant closesAt = closesAt(window);
              if (!failedAt.plus(delay).isBefore(closesAt)) {
                return RetryDecision.dead("retry window closed at " + closesAt);
              }
              return Decisions.retry(failedAt, retryCount, maxRetries, delay);
            });
  }
}
