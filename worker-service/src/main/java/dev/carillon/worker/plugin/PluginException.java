package dev.carillon.worker.plugin;

import dev.carillon.model.CarillonException;

/** The plugins cannot be loaded as found: a clash of types, a bad type, a broken jar. */
public final class PluginException extends CarillonException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what is wrong, naming the classes and where they came from
   */
  public PluginException(String message) {
    super(message);
  }

  /**
   * @param message what is wrong, naming the classes and where they came from
   * @param cause the loader's error
   */
  public PluginException(String message, Throwable cause) {
    super(message, cause);
  }
}
