package dev.carillon.model.retry;

import dev.carillon.model.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** The steps every retrying policy shares, so their reasons read the same. */
final class Decisions {
  static final String NOT_RETRYABLE_TASK = "task is not retryable";
  static final String NON_RETRYABLE_FAILURE = "failure is non-retryable";

  private Decisions() {}

  static void checkArguments(Instant failedAt, int retryCount, double jitterSample) {
    Objects.requireNonNull(failedAt, "failedAt");
    if (retryCount < 0) {
      throw new IllegalArgumentException("retryCount must not be negative: " + retryCount);
    }
    if (!(jitterSample >= 0.0 && jitterSample <= 1.0)) {
      throw new IllegalArgumentException("jitterSample must be in [0, 1]: " + jitterSample);
    }
  }

  /** Dead when the failure is non-retryable or the budget is used up; empty otherwise. */
  static Optional<RetryDecision> refusal(
      int retryCount, int maxRetries, boolean nonRetryableFailure) {
    if (nonRetryableFailure) {
      return Optional.of(RetryDecision.dead(NON_RETRYABLE_FAILURE));
    }
    if (retryCount >= maxRetries) {
      return Optional.of(
          RetryDecision.dead("retries used up (" + retryCount + " of " + maxRetries + ")"));
    }
    return Optional.empty();
  }

  static RetryDecision retry(Instant failedAt, int retryCount, int maxRetries, Duration delay) {
    Instant at = failedAt.plus(delay);
    return RetryDecision.retryAt(
        at,
        "retry "
            + (retryCount + 1)
            + " of "
            + maxRetries
            + " at "
            + at
            + " (after "
            + Durations.format(delay)
            + ")");
  }
}
