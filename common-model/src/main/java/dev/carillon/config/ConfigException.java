package dev.carillon.config;

import dev.carillon.model.CarillonException;

/**
 * A configuration value that is missing or wrong; names the key, where it came from and the value.
 */
public final class ConfigException extends CarillonException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  /**
   * A value the settings' own checks refused: {@code cause} keeps where it was refused, the message
   * is its message.
   */
  public ConfigException(IllegalArgumentException cause) {
    super(cause.getMessage(), cause);
  }
}
