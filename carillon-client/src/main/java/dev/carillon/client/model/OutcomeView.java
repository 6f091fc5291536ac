package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.Map;

/**
 * How a task's most recently finished instance ended.
 *
 * @param status {@code SUCCESS}, {@code DEAD}, {@code SKIPPED} or {@code CANCELLED}
 * @param zone the task's zone, in which {@code local} shows the times; null when unknown (the task
 *     was deleted, or it has no readable definition)
 * @param local the instants above that are set, on the task's wall clock with their offset (e.g.
 *     {@code 2026-03-29T10:00:00+02:00}), keyed by the field's name: {@code finishedAt}; empty
 *     without a zone
 */
@Stability.Evolving
public record OutcomeView(
    long instanceId,
    String windowKey,
    String status,
    Instant finishedAt,
    String zone,
    Map<String, String> local) {
  public OutcomeView {
    local = local == null ? Map.of() : Map.copyOf(local);
  }
}
