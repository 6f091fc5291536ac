package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;

/**
 * One attempt of an instance ({@code GET /instances/{id}/attempts}), read from its history.
 *
 * @param number the attempt number
 * @param worker the worker that claimed it
 * @param endedAt when it left RUNNING, or null while it runs
 * @param outcome {@code SUCCESS}, {@code FAILED}, {@code TIMEOUT}, {@code PENDING} (released on a
 *     worker's shutdown), {@code CANCELLED}, or null while it runs
 * @param reason why it ended so, or null
 * @param durationMs how long it ran (so far, while it runs)
 */
@Stability.Evolving
public record AttemptView(
    int number,
    String worker,
    Instant startedAt,
    Instant endedAt,
    String outcome,
    String reason,
    long durationMs) {}
