package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.util.List;

/**
 * Coming fire times: a task's ({@code GET /tasks/{id}/next}) or an unsaved expression's ({@code GET
 * /next}, {@code taskId} null).
 */
@Stability.Evolving
public record NextFiresView(
    String taskId, String zone, String cron, boolean paused, List<FireView> fires) {
  public NextFiresView {
    fires = List.copyOf(fires);
  }
}
