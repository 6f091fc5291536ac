package dev.carillon.model.resume;

import java.time.Instant;
import java.util.Objects;

/**
 * The last checkpoint one attempt of an instance saved.
 *
 * @param instanceId the instance
 * @param attempt the attempt that saved it
 * @param stateJson the state, one JSON object as text
 * @param saves how many checkpoints the attempt saved; this is the last of them
 * @param workerId the worker that ran the attempt
 * @param savedAt when the last one was stored, by the database's clock
 */
public record SavedCheckpoint(
    long instanceId, int attempt, String stateJson, int saves, String workerId, Instant savedAt) {

  public SavedCheckpoint {
    Objects.requireNonNull(stateJson, "stateJson");
    Objects.requireNonNull(workerId, "workerId");
    Objects.requireNonNull(savedAt, "savedAt");
  }
}
