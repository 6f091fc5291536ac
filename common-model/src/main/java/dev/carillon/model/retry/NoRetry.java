package dev.carillon.model.retry;

import dev.carillon.model.schedule.Window;
import java.time.Instant;

/** NONE, the default: a failed instance is dead at once. Tasks must opt in to retries. */
public record NoRetry() implements RetryPolicy {
  static final NoRetry INSTANCE = new NoRetry();

  @Override
  public String kind() {
    return "NONE";
  }

  @Override
  public int maxRetries() {
    return 0;
  }

  /** Always dead with {@code task is not retryable}, whatever the failure was. */
  @Override
  public RetryDecision decide(
      Instant failedAt,
      int retryCount,
      Window window,
      boolean nonRetryableFailure,
      double jitterSample) {
    Decisions.checkArguments(failedAt, retryCount, jitterSample);
    return RetryDecision.dead(Decisions.NOT_RETRYABLE_TASK);
  }
}
