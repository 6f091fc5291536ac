package dev.carillon.testkit;

import dev.carillon.api.Stability;
import java.time.Instant;

/**
 * The last checkpoint one attempt of a harness run saved, as the worker stored it.
 *
 * @param attempt the attempt that saved it
 * @param stateJson the state
 * @param saves how many checkpoints the attempt saved; this is the last
 * @param workerId the worker that ran the attempt
 * @param savedAt when it was stored (the database's clock)
 */
@Stability.Evolving
public record RunCheckpoint(
    int attempt, String stateJson, int saves, String workerId, Instant savedAt) {}
