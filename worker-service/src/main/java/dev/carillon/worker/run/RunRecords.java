package dev.carillon.worker.run;

import dev.carillon.api.Checkpoint;
import dev.carillon.api.RunCancelledException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;

/**
 * A run's checkpoints and effects for the agents that run outside this JVM ({@code exec}, {@code
 * http}): what they are told when they start, and what their protocol lines or responses record.
 * The same records, limits and fences as a Java plugin's {@code AgentContext.checkpoint} and {@code
 * once} ({@link ResumeRecords}); the difference is that such an agent cannot wait for an answer, so
 * it learns the effects already done from its context and reports its own effects after the fact.
 * Thread-safe.
 */
public interface RunRecords {

  /**
   * An effect of this window as the records stood when the run started.
   *
   * @param done whether an attempt recorded it as done; otherwise one started it and none recorded
   *     it (in doubt)
   * @param result the done record's result, or {@code null}
   * @param attempt the attempt of the done record, or of the latest start when not done
   */
  record EarlierEffect(boolean done, String result, int attempt) {}

  /**
   * The last checkpoint of an earlier attempt, as {@code AgentContext.lastCheckpoint()}.
   *
   * @throws UncheckedIOException when the database cannot be reached
   */
  Optional<Checkpoint> lastCheckpoint();

  /**
   * The window's effects recorded before this run, by key.
   *
   * @throws UncheckedIOException when the database cannot be reached
   */
  Map<String, EarlierEffect> effects();

  /**
   * Stores a checkpoint, as {@code AgentContext.checkpoint}: fenced, renewing the lease; a refused
   * one stops the run.
   *
   * @throws IllegalArgumentException when the state is not a JSON object or too large
   * @throws RunCancelledException when the run is stopped or the write is refused
   * @throws UncheckedIOException when the database cannot be reached
   */
  void checkpoint(String stateJson);

  /**
   * Records that this attempt starts the effect {@code key}, so that a later attempt knows it may
   * have happened.
   *
   * @return {@code false} when an earlier call already recorded it as done (nothing written; the
   *     agent should not have started it, which is logged and counted)
   * @throws IllegalArgumentException when the key breaks the effect key rule
   * @throws RunCancelledException when the run is stopped or the write is refused
   * @throws UncheckedIOException when the database cannot be reached
   */
  boolean effectStarted(String key);

  /**
   * Records the effect {@code key} as done by this attempt with {@code result}, starting it first
   * when the agent did not report the start.
   *
   * @return {@code false} when an earlier call already recorded it as done (not recorded again; the
   *     agent performed it again, which is logged and counted)
   * @throws IllegalArgumentException when the key breaks the rule, or the result is too large (the
   *     effect is then recorded as done without it)
   * @throws RunCancelledException when the run is stopped or the record is refused
   * @throws UncheckedIOException when the database cannot be reached
   */
  boolean effectDone(String key, String result);
}
