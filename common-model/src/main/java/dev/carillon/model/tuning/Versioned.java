package dev.carillon.model.tuning;

import java.util.Objects;

/**
 * A value and the version it was set at (the config-topic record offset).
 *
 * @param value the value
 * @param version the offset of the record that set it, not negative
 */
public record Versioned<T>(T value, long version) {
  public Versioned {
    Objects.requireNonNull(value, "value");
    if (version < 0) {
      throw new IllegalArgumentException("version must not be negative: " + version);
    }
  }
}
