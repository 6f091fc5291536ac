package dev.carillon.model.retry;

import dev.carillon.model.schedule.Window;
import java.time.Duration;
import java.time.Instant;

/**
 * IMMEDIATE: retry at the instant the attempt failed. Fast, but it hammers a dependency that is
 * down; prefer DELAYED or EXPONENTIAL for anything that calls the network.
 *
 * @param maxRetries retries allowed after the first attempt, 0..{@value RetryPolicy#MAX_RETRIES}
 */
public record ImmediateRetry(int maxRetries) implements RetryPolicy {
  public ImmediateRetry {
    RetryRules.require("maxRetries", maxRetries, RetryRules.maxRetries(maxRetries));
  }

  @Override
  public String kind() {
    return "IMMEDIATE";
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
        .orElseGet(() -> Decisions.retry(failedAt, retryCount, maxRetries, Duration.ZERO));
  }
}
