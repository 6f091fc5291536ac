package dev.carillon.kafka;

import dev.carillon.model.CarillonException;

/** Kafka did not answer in time or refused a call; the message names Kafka and where it was. */
public final class KafkaUnavailableException extends CarillonException {
  private static final long serialVersionUID = 1L;

  public KafkaUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
