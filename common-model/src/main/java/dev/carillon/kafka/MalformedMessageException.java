package dev.carillon.kafka;

import dev.carillon.model.CarillonException;

/**
 * A Kafka record's value is not a valid Carillon message. Consumers log the reason, count the
 * record and skip it; it is never retried, since it would fail the same way again.
 */
public final class MalformedMessageException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final String reason;

  /**
   * @param reason what is wrong, naming the field and the value, e.g. {@code field "id" must be a
   *     positive integer, was -3}
   */
  public MalformedMessageException(String reason) {
    super("malformed message: " + reason);
    this.reason = reason;
  }

  /**
   * @param reason what is wrong
   * @param cause the parser's exception
   */
  public MalformedMessageException(String reason, Throwable cause) {
    super("malformed message: " + reason, cause);
    this.reason = reason;
  }

  /** What is wrong with the message, naming the field and the value. */
  public String reason() {
    return reason;
  }
}
