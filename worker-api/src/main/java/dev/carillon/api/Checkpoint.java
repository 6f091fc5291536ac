package dev.carillon.api;

import java.time.Instant;
import java.util.Objects;

/**
 * A checkpoint an earlier attempt of the same window saved with {@link AgentContext#checkpoint}:
 * the state it had reached, which attempt saved it, and when. A later attempt reads it with {@link
 * AgentContext#lastCheckpoint()} and resumes from there instead of starting from nothing.
 *
 * @param stateJson the state as saved: one JSON object as text, at most {@link #MAX_STATE_BYTES}
 *     bytes of UTF-8; never {@code null}
 * @param attempt the attempt that saved it (1 or more); always lower than the attempt reading it
 * @param savedAt when the scheduler stored it, by the database's clock (UTC)
 */
@Stability.Evolving
public record Checkpoint(String stateJson, int attempt, Instant savedAt) {

  /** The largest state a checkpoint holds, in bytes of UTF-8: {@value} (64 KiB). */
  public static final int MAX_STATE_BYTES = 65_536;

  /**
   * Checks the values.
   *
   * @throws NullPointerException if {@code stateJson} or {@code savedAt} is {@code null}
   * @throws IllegalArgumentException if {@code attempt} is less than 1
   */
  public Checkpoint {
    Objects.requireNonNull(stateJson, "stateJson");
    Objects.requireNonNull(savedAt, "savedAt");
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be 1 or more, was " + attempt);
    }
  }
}
