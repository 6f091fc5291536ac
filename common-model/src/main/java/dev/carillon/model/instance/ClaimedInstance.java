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
 * @param paramsOverride the params a run-now gave this instance ({@link Instance#paramsOverride}),
 *     or {@code null}
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
    String previousFailure,
    String paramsOverride) {

  /** A claimed instance without a params override. */
  public ClaimedInstance(
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
    this(
        id,
        taskId,
        windowKey,
        windowStart,
        windowEnd,
        scheduledAt,
        attempt,
        retryCount,
        timeout,
        previousFailure,
        null);
  }

  /**
   * The idempotency key agents see: {@code taskId/windowKey}, as {@link Instance#idempotencyKey}.
   */
  public String idempotencyKey() {
    return taskId + "/" + windowKey;
  }
}
