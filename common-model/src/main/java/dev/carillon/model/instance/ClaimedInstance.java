package dev.carillon.model.instance;

import java.time.Duration;
import java.time.Instant;

/**
 * An instance as a worker holds it right after claiming it: what its run needs, and no more. The
 * worker's claim returns this rather than a whole {@link Instance}, because every column read back
 * is formatted by PostgreSQL and parsed by the client, for every instance of every batch; a whole
 * row carries eight timestamps, of which a run needs three.
 *
 * @param attempt the attempt this claim holds: the fencing token of its heartbeats and end
 * @param retryCount retries consumed before this attempt
 * @param timeout the lease length, and the run's deadline from its start
 * @param previousFailure why the previous attempt failed, or {@code null}
 */
public record ClaimedInstance(
    long id,
    String taskId,
    String windowKey,
    Instant windowStart,
    Instant windowEnd,
    Instant scheduledAt,
    int attempt,
    int retryCount,
    Duration timeout,
    String previousFailure) {

  /**
   * The idempotency key agents see: {@code taskId/windowKey}, as {@link Instance#idempotencyKey}.
   */
  public String idempotencyKey() {
    return taskId + "/" + windowKey;
  }
}
