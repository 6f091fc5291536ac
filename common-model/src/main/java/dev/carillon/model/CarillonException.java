package dev.carillon.model;

/**
 * Root of Carillon's unchecked exceptions; identifiers appear both in fields and in the message.
 */
public class CarillonException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CarillonException(String message) {
    super(message);
  }

  public CarillonException(String message, Throwable cause) {
    super(message, cause);
  }
}
