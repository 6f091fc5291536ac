package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;

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
 */
@Stability.Evolving
public record WhyView(
    String taskId,
    String windowKey,
    List<EventView> events,
    List<String> lines,
    String hint,
    String waiting,
    Instant archivedAt) {
  public WhyView {
    events = List.copyOf(events);
    lines = List.copyOf(lines);
  }
}
