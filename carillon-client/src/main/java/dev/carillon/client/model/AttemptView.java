package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.Map;

/**
 * One attempt of an instance ({@code GET /instances/{id}/attempts}), read from its history.
 *
 * @param number the attempt number
 * @param worker the worker that claimed it
 * @param endedAt when it left RUNNING, or null while it runs
 * @param outcome {@code SUCCESS}, {@code FAILED}, {@code TIMEOUT}, {@code PENDING} (released on a
 *     worker's shutdown), {@code CANCELLED}, or null while it runs
 * @param reason why it ended so, or null
 * @param durationMs how long it ran (so far, while it runs)
 * @param zone the task's zone, in which {@code local} shows the times; null when unknown (the task
 *     was deleted, or it has no readable definition)
 * @param local the instants above that are set, on the task's wall clock with their offset (e.g.
 *     {@code 2026-03-29T10:00:00+02:00}), keyed by the field's name: {@code startedAt}, {@code
 *     endedAt}; empty without a zone
 */
@Stability.Evolving
public record AttemptView(
    int number,
    String worker,
    Instant startedAt,
    Instant endedAt,
    String outcome,
    String reason,
    long durationMs,
    String zone,
    Map<String, String> local) {
  public AttemptView {
    local = local == null ? Map.of() : Map.copyOf(local);
  }
}
