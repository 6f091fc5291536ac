package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.util.List;

/** A task's coming fire times ({@code GET /tasks/{id}/next}). */
@Stability.Evolving
public record NextFiresView(
    String taskId, String zone, String cron, boolean paused, List<FireView> fires) {
  public NextFiresView {
    fires = List.copyOf(fires);
  }
}
