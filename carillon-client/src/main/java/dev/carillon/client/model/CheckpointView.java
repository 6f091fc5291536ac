package dev.carillon.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.Map;

/**
 * The last checkpoint one attempt of an instance saved (the agent's {@code
 * AgentContext.checkpoint}, an exec agent's checkpoint line): what the next attempt resumes from.
 *
 * @param attempt the attempt that saved it
 * @param state the state, a JSON object
 * @param saves how many checkpoints the attempt saved; this is the last
 * @param workerId the worker that ran the attempt
 * @param savedAt when it was stored
 * @param zone the task's zone, in which {@code local} shows the times; null when unknown (the task
 *     was deleted, or it has no readable definition)
 * @param local the instants above that are set, on the task's wall clock with their offset (e.g.
 *     {@code 2026-03-29T10:00:00+02:00}), keyed by the field's name: {@code savedAt}; empty without
 *     a zone
 */
@Stability.Evolving
public record CheckpointView(
    int attempt,
    JsonNode state,
    int saves,
    String workerId,
    Instant savedAt,
    String zone,
    Map<String, String> local) {
  public CheckpointView {
    local = local == null ? Map.of() : Map.copyOf(local);
  }
}
