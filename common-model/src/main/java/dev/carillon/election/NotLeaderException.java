package dev.carillon.election;

import dev.carillon.model.CarillonException;

/**
 * A leader-only round was asked for while this instance does not lead (or can no longer show that
 * it does): it writes nothing and ends. Not a failure; the loop waits for leadership.
 */
public final class NotLeaderException extends CarillonException {
  private static final long serialVersionUID = 1L;

  public NotLeaderException(String service, String why) {
    super("not the " + service + " leader: " + why);
  }
}
