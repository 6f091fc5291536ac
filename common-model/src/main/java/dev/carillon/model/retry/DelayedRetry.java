package dev.carillon.model.retry;

import dev.carillon.model.schedule.Window;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * DELAYED: an explicit list of waits, e.g. 5m, 15m, 30m. Retry {@code n} (0-based) waits {@code
 * delays[min(n, size - 1)]}, so the last delay repeats when {@code maxRetries} exceeds the list.
 *
 * @param delays one or more delays, each more than 0 and at most {@link RetryPolicy#MAX_DELAY}
 * @param maxRetries retries allowed after the first attempt, 0..{@value RetryPolicy#MAX_RETRIES}
 */
public record DelayedRetry(List<Duration> delays, int maxRetries) implements RetryPolicy {
  public DelayedRetry {
    Objects.requireNonNull(delays, "delays");
    RetryRules.require(
        "delays",
        delays,
        delays.isEmpty() ? Optional.of("must list at least one delay") : Optional.empty());
    for (int i = 0; i < delays.size(); i++) {
      RetryRules.require("delays[" + i + "]", delays.get(i), RetryRules.delay(delays.get(i)));
    }
    delays = List.copyOf(delays);
    RetryRules.require("maxRetries", maxRetries, RetryRules.maxRetries(maxRetries));
  }

  @Override
  public String kind() {
    return "DELAYED";
  }

  /** The wait before retry {@code retryCount + 1}. */
  public Duration delayFor(int retryCount) {
    return delays.get(Math.min(Math.max(retryCount, 0), delays.size() - 1));
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
        .orElseGet(() -> Decisions.retry(failedAt, retryCount, maxRetries, delayFor(retryCount)));
  }
}
