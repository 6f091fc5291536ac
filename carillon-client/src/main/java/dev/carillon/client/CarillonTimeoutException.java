package dev.carillon.client;

import dev.carillon.api.Stability;
import dev.carillon.client.model.InstanceView;

/**
 * An instance had not finished when {@link CarillonClient#awaitOutcome} gave up. The instance goes
 * on; {@link #lastSeen()} is where it stood at the last poll.
 */
@Stability.Evolving
public final class CarillonTimeoutException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final transient InstanceView lastSeen;

  /** An exception carrying the instance as last seen. */
  public CarillonTimeoutException(String message, InstanceView lastSeen) {
    super(message, null);
    this.lastSeen = lastSeen;
  }

  /** The instance at the last poll. */
  public InstanceView lastSeen() {
    return lastSeen;
  }
}
