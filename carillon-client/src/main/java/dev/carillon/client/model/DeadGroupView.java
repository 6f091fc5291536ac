package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.Map;

/**
 * DEAD instances of one task that failed for one reason ({@code GET /dead-letters}).
 *
 * @param reason their failure reason exactly as recorded, or null when none was; re-run them with
 *     {@code POST /instances:rerun-dead} and this as {@code failReason} (the empty string for none)
 * @param count how many
 * @param newestId the id of the latest of them
 * @param zone the task's zone, in which {@code local} shows the times; null when unknown (the task
 *     was deleted, or it has no readable definition)
 * @param local the instants above that are set, on the task's wall clock with their offset (e.g.
 *     {@code 2026-03-29T10:00:00+02:00}), keyed by the field's name: {@code firstFinishedAt},
 *     {@code lastFinishedAt}; empty without a zone
 */
@Stability.Evolving
public record DeadGroupView(
    String task,
    String reason,
    long count,
    Instant firstFinishedAt,
    Instant lastFinishedAt,
    long newestId,
    String zone,
    Map<String, String> local) {
  public DeadGroupView {
    local = local == null ? Map.of() : Map.copyOf(local);
  }
}
