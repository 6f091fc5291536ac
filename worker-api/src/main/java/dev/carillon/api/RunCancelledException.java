package dev.carillon.api;

import java.util.concurrent.CancellationException;

/**
 * Thrown by {@link AgentContext#checkCancelled()} when the run has been cancelled. Let it propagate
 * out of {@link AgentTask#run}; the worker records nothing for a cancelled run, so catching it
 * gains nothing and only delays the stop. It is unchecked so that it passes through agent code
 * without declarations, and it is a {@link CancellationException} so that code which already
 * handles cancelled futures treats it the same way.
 */
@Stability.Stable
public class RunCancelledException extends CancellationException {
  private static final long serialVersionUID = 1L;

  /** The cancelled instance, {@code taskId/windowKey}. */
  private final String idempotencyKey;

  /** The cancelled attempt number. */
  private final int attempt;

  /**
   * Creates the exception.
   *
   * @param idempotencyKey the cancelled instance, {@code taskId/windowKey}
   * @param attempt the cancelled attempt
   */
  public RunCancelledException(String idempotencyKey, int attempt) {
    super("run " + idempotencyKey + " attempt " + attempt + " was cancelled");
    this.idempotencyKey = idempotencyKey;
    this.attempt = attempt;
  }

  /**
   * The cancelled instance.
   *
   * @return {@code taskId/windowKey}
   */
  public String idempotencyKey() {
    return idempotencyKey;
  }

  /**
   * The cancelled attempt.
   *
   * @return the attempt number
   */
  public int attempt() {
    return attempt;
  }
}
