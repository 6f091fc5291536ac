package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The answer to a task delete.
 *
 * @param version the version the delete wrote
 * @param deletedAt when it was deleted
 * @param cancelled the live instances cancelled with it ({@code live=cancel}), else empty
 * @param zone the task's zone, in which {@code local} shows the times; null when unknown (the task
 *     was deleted, or it has no readable definition)
 * @param local the instants above that are set, on the task's wall clock with their offset (e.g.
 *     {@code 2026-03-29T10:00:00+02:00}), keyed by the field's name: {@code deletedAt}; empty
 *     without a zone
 */
@Stability.Evolving
public record DeleteResult(
    String taskId,
    long version,
    Instant deletedAt,
    List<Long> cancelled,
    String zone,
    Map<String, String> local) {
  public DeleteResult {
    local = local == null ? Map.of() : Map.copyOf(local);
    cancelled = List.copyOf(cancelled);
  }
}
