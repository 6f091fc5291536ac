package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.util.List;

/**
 * Coming fire times: a task's ({@code GET /tasks/{id}/next}) or an unsaved expression's ({@code GET
 * /next}, {@code taskId} null).
 *
 * @param cron the expression, for a cron task or a preview; null for a one-shot
 * @param trigger the trigger in one line, e.g. {@code once at 2026-12-24T08:00:00Z
 *     (2026-12-24T09:00 in Europe/Berlin)}
 * @param fires the coming fire times; empty when there are none (a one-shot whose instant passed)
 */
@Stability.Evolving
public record NextFiresView(
    String taskId, String zone, String cron, String trigger, boolean paused, List<FireView> fires) {
  public NextFiresView {
    fires = List.copyOf(fires);
  }
}
