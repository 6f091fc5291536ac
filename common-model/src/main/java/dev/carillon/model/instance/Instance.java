package dev.carillon.model.instance;

import java.time.Duration;
import java.time.Instant;

/**
 * One row of the instance table as the domain sees it: a task's run for one window.
 *
 * @param attempt the number of claims so far; the fencing token of the current claim
 * @param retryCount retries consumed (RETRY_WAIT → PENDING moves)
 * @param timeout the lease length a claim gets, copied from the task when the row was created
 * @param progress the latest progress an attempt reported ({@link Progress}), or {@code null}
 * @param progressAt when that attempt's agent reported it, or {@code null}
 * @param paramsOverride the JSON object a run-now gave to replace some of the task's params for
 *     this instance (top-level fields, merged by {@code dev.carillon.spec.ParamsOverride}), or
 *     {@code null}
 */
public record Instance(
    long id,
    String taskId,
    String windowKey,
    Instant windowStart,
    Instant windowEnd,
    Instant scheduledAt,
    InstanceStatus status,
    int attempt,
    int retryCount,
    int maxRetry,
    Instant nextAttemptAt,
    Instant leaseUntil,
    Duration timeout,
    String workerId,
    Origin origin,
    boolean nonRetryable,
    Long policyVersion,
    String resultSummary,
    boolean resultTruncated,
    String resultUri,
    String failReason,
    Instant startedAt,
    Instant finishedAt,
    Instant dispatchedAt,
    Instant createdAt,
    Instant updatedAt,
    String progress,
    Instant progressAt,
    String paramsOverride) {

  /** This instance with {@code paramsOverride} set. */
  public Instance withParamsOverride(String paramsOverride) {
    return new Instance(
        id,
        taskId,
        windowKey,
        windowStart,
        windowEnd,
        scheduledAt,
        status,
        attempt,
        retryCount,
        maxRetry,
        nextAttemptAt,
        leaseUntil,
        timeout,
        workerId,
        origin,
        nonRetryable,
        policyVersion,
        resultSummary,
        resultTruncated,
        resultUri,
        failReason,
        startedAt,
        finishedAt,
        dispatchedAt,
        createdAt,
        updatedAt,
        progress,
        progressAt,
        paramsOverride);
  }

  /** The idempotency key agents see: {@code taskId/windowKey}. */
  public String idempotencyKey() {
    return taskId + "/" + windowKey;
  }
}
