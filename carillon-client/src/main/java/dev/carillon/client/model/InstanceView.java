package dev.carillon.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One instance: one window of one task, and where its run stands.
 *
 * @param id the instance id
 * @param taskId its task
 * @param windowKey its window's key, unique per task (e.g. {@code 2026-03-29}, or {@code manual-…}
 *     for a run-now)
 * @param windowStart the window's start
 * @param windowEnd the window's end (exclusive; equal to the start for a one-instant window)
 * @param scheduledAt when it was due
 * @param status {@code PENDING}, {@code RUNNING}, {@code SUCCESS}, {@code FAILED}, {@code TIMEOUT},
 *     {@code RETRY_WAIT}, {@code DEAD}, {@code SKIPPED} or {@code CANCELLED}
 * @param origin {@code SCHEDULE}, {@code CATCHUP}, {@code BACKFILL}, {@code EVENT}, {@code
 *     DEPENDENCY}, {@code CONDITION} or {@code MANUAL}
 * @param attempt how many times it was claimed (the workers' fencing token)
 * @param retryCount retries used
 * @param maxRetry retries allowed
 * @param nextAttemptAt when a RETRY_WAIT instance runs again
 * @param leaseUntil until when a RUNNING instance's worker holds it
 * @param timeout the longest one attempt may run, e.g. {@code 30m}
 * @param workerId the worker that ran it last
 * @param nonRetryable whether the plugin said the failure is permanent
 * @param resultSummary what the plugin reported
 * @param resultTruncated whether the summary was cut
 * @param resultUri where the plugin put a larger result
 * @param failReason why it failed, was skipped or cancelled
 * @param progress the latest progress its agent reported (e.g. {@code summarised 40 of 120 files}),
 *     or null
 * @param progressAt when the agent reported it
 * @param paramsOverride for a run-now with params: the JSON object whose top-level fields replace
 *     the task's params of the same name for this instance; null when it runs with the task's
 * @param zone the task's zone, in which {@code local} shows the times; null when unknown (a task
 *     without a zone, or one that was archived away)
 * @param local the instants above that are set, on the task's wall clock with their offset (e.g.
 *     {@code "scheduledAt": "2026-03-29T10:00:00+02:00"}), keyed by the field's name: {@code
 *     windowStart}, {@code windowEnd}, {@code scheduledAt}, {@code nextAttemptAt}, {@code
 *     leaseUntil}, {@code startedAt}, {@code finishedAt}, {@code progressAt}, {@code dispatchedAt},
 *     {@code createdAt}, {@code updatedAt}, {@code archivedAt}; empty without a zone
 * @param checkpoints the last checkpoint of each attempt that saved one, oldest attempt first; only
 *     in {@code GET /instances/{id}} (absent from lists)
 * @param effects every attempt's record of every side effect, by attempt; only in {@code GET
 *     /instances/{id}} (absent from lists)
 * @param archivedAt when the archiver moved it to the history tables; only in {@code GET
 *     /instances/{id}}, which answers for an archived instance too (read only); null when live
 */
@Stability.Evolving
public record InstanceView(
    long id,
    String taskId,
    String windowKey,
    Instant windowStart,
    Instant windowEnd,
    Instant scheduledAt,
    String status,
    String origin,
    int attempt,
    int retryCount,
    int maxRetry,
    Instant nextAttemptAt,
    Instant leaseUntil,
    String timeout,
    String workerId,
    boolean nonRetryable,
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
    JsonNode paramsOverride,
    String zone,
    Map<String, String> local,
    List<CheckpointView> checkpoints,
    List<EffectView> effects,
    Instant archivedAt) {
  public InstanceView {
    local = local == null ? Map.of() : Map.copyOf(local);
  }
}
