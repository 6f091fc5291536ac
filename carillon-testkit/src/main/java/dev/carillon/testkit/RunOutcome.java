package dev.carillon.testkit;

import dev.carillon.api.Stability;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * How one {@link AgentHarness} run ended, as the worker recorded it in the database.
 *
 * @param taskId the task
 * @param windowKey the window
 * @param status how it ended
 * @param attempt the attempt number the run held (1 for a first run)
 * @param summary the stored summary of a success (cut to the worker's limit), else empty
 * @param summaryTruncated whether the worker cut the summary
 * @param artifact the result's URI, if the agent returned one
 * @param failReason the recorded reason of a failure or timeout, else empty
 * @param nonRetryable whether the failure was marked permanent ({@code NonRetryableException})
 * @param events the instance's history, oldest first
 * @param checkpoints the last checkpoint of each attempt that saved any, oldest attempt first
 * @param effects every attempt's record of every effect, by attempt
 */
@Stability.Evolving
public record RunOutcome(
    String taskId,
    String windowKey,
    Status status,
    int attempt,
    Optional<String> summary,
    boolean summaryTruncated,
    Optional<URI> artifact,
    Optional<String> failReason,
    boolean nonRetryable,
    List<RunEvent> events,
    List<RunCheckpoint> checkpoints,
    List<RunEffect> effects) {

  /** Copies the lists. */
  public RunOutcome {
    events = List.copyOf(events);
    checkpoints = List.copyOf(checkpoints);
    effects = List.copyOf(effects);
  }

  /** The ends a run reaches in the worker. */
  @Stability.Evolving
  public enum Status {
    /** The agent returned a result. */
    SUCCESS,
    /** The agent threw; {@link RunOutcome#nonRetryable()} tells whether a retry may follow. */
    FAILED,
    /** The run passed its deadline; the worker cancelled it. */
    TIMEOUT,
    /**
     * The worker process running it was killed ({@link AgentHarness#runAndKillWorker}); the
     * instance is still RUNNING with the dead worker's lease until {@link AgentHarness#retry}.
     */
    KILLED
  }

  /**
   * Whether the agent returned a result.
   *
   * @return {@code true} for {@link Status#SUCCESS}
   */
  public boolean succeeded() {
    return status == Status.SUCCESS;
  }

  /**
   * Whether the agent threw an ordinary exception, so that the task's retry policy decides what
   * happens next.
   *
   * @return {@code true} for a {@link Status#FAILED} run not marked non-retryable
   */
  public boolean failedRetryably() {
    return status == Status.FAILED && !nonRetryable;
  }

  /**
   * Whether the agent refused permanently ({@code NonRetryableException}): the instance goes DEAD
   * without a retry.
   *
   * @return {@code true} for a {@link Status#FAILED} run marked non-retryable
   */
  public boolean failedPermanently() {
    return status == Status.FAILED && nonRetryable;
  }

  /**
   * Whether its worker process was killed mid-run.
   *
   * @return {@code true} for {@link Status#KILLED}
   */
  public boolean killed() {
    return status == Status.KILLED;
  }

  /**
   * The last checkpoint of one attempt.
   *
   * @param attempt the attempt
   * @return its last checkpoint, or empty when it saved none
   */
  public Optional<RunCheckpoint> checkpointOf(int attempt) {
    return checkpoints.stream().filter(c -> c.attempt() == attempt).findFirst();
  }

  /**
   * Whether the run passed its deadline.
   *
   * @return {@code true} for {@link Status#TIMEOUT}
   */
  public boolean timedOut() {
    return status == Status.TIMEOUT;
  }
}
