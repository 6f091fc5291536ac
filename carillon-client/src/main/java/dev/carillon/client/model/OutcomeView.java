package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;

/**
 * How a task's most recently finished instance ended.
 *
 * @param status {@code SUCCESS}, {@code DEAD}, {@code SKIPPED} or {@code CANCELLED}
 */
@Stability.Evolving
public record OutcomeView(long instanceId, String windowKey, String status, Instant finishedAt) {}
