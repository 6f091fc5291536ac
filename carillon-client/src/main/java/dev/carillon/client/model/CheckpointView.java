package dev.carillon.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.api.Stability;
import java.time.Instant;

/**
 * The last checkpoint one attempt of an instance saved (the agent's {@code
 * AgentContext.checkpoint}, an exec agent's checkpoint line): what the next attempt resumes from.
 *
 * @param attempt the attempt that saved it
 * @param state the state, a JSON object
 * @param saves how many checkpoints the attempt saved; this is the last
 * @param workerId the worker that ran the attempt
 * @param savedAt when it was stored
 */
@Stability.Evolving
public record CheckpointView(
    int attempt, JsonNode state, int saves, String workerId, Instant savedAt) {}
