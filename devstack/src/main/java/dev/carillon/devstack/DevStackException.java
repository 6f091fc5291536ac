package dev.carillon.devstack;

/** A server of the {@link DevStack} could not be started, stopped or reached. */
public final class DevStackException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DevStackException(String message) {
    super(message);
  }

  public DevStackException(String message, Throwable cause) {
    super(message, cause);
  }
}
