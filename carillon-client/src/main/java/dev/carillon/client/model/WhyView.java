package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Every decision made about one window, in order: the same story {@code schedctl why} tells.
 *
 * @param events the decisions and transitions
 * @param lines the story as text lines, one per event
 * @param hint when nothing was ever decided, what the task's window keys look like; else null
 * @param waiting when the instance is PENDING and no live, ready worker serves its task's queue
 *     with its handler, why ("no worker serves queue gpu with handler summarize (...)"); else null
 * @param archivedAt when the window's instance was moved to the history tables, whose events the
 *     story includes; null when it is live
 * @param zone the task's zone, in which {@code local} shows the times; null when unknown (the task
 *     was deleted, or it has no readable definition)
 * @param local the instants above that are set, on the task's wall clock with their offset (e.g.
 *     {@code 2026-03-29T10:00:00+02:00}), keyed by the field's name: {@code archivedAt}; empty
 *     without a zone
 */
@Stability.Evolving
public record WhyView(
    String taskId,
    String windowKey,
    List<EventView> events,
    List<String> lines,
    String hint,
    String waiting,
    Instant archivedAt,
    String zone,
    Map<String, String> local) {
  public WhyView {
    local = local == null ? Map.of() : Map.copyOf(local);
    events = List.copyOf(events);
    lines = List.copyOf(lines);
  }
}
