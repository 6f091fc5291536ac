package dev.carillon.api;

/**
 * Marks a failure that running again cannot fix: invalid parameters, a permanent refusal from a
 * tool, data that will never exist. The instance goes straight to DEAD (with this exception's
 * message as the reason) instead of consulting the task's retry policy.
 *
 * <p>It is unchecked so that agents can throw it from lambdas and helpers without declaring it. The
 * worker also recognises it when it arrives wrapped, anywhere in the cause chain of what {@link
 * AgentTask#run} throws (for example inside an {@link java.util.concurrent.ExecutionException}).
 */
@Stability.Stable
public class NonRetryableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message why running again cannot help; recorded as the failure reason
   */
  public NonRetryableException(String message) {
    super(message);
  }

  /**
   * Creates the exception with its cause.
   *
   * @param message why running again cannot help; recorded as the failure reason
   * @param cause the underlying failure
   */
  public NonRetryableException(String message, Throwable cause) {
    super(message, cause);
  }
}
