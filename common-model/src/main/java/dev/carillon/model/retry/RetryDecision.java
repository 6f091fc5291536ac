package dev.carillon.model.retry;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of a retry decision: retry at an instant, or dead with a reason.
 *
 * @param retryAt when to retry; empty means the instance is DEAD
 * @param reason plain words for the event log, e.g. {@code retry 2 of 3 in 10m} or {@code retries
 *     used up (3 of 3)}
 */
public record RetryDecision(Optional<Instant> retryAt, String reason) {
  public RetryDecision {
    Objects.requireNonNull(retryAt, "retryAt");
    Objects.requireNonNull(reason, "reason");
  }

  public static RetryDecision retryAt(Instant at, String reason) {
    return new RetryDecision(Optional.of(at), reason);
  }

  public static RetryDecision dead(String reason) {
    return new RetryDecision(Optional.empty(), reason);
  }

  public boolean isDead() {
    return retryAt.isEmpty();
  }
}
