package dev.carillon.auth;

import java.util.Locale;

/**
 * What a token may do on the API. Each role includes the ones before it.
 *
 * <ul>
 *   <li>{@link #VIEWER}: read everything.
 *   <li>{@link #OPERATOR}: also change tasks and instances (apply, delete, pause, resume, run now,
 *       backfill, cancel, re-run, bulk re-run).
 *   <li>{@link #ADMIN}: also change the live configuration (config set and unset).
 * </ul>
 */
public enum Role {
  VIEWER,
  OPERATOR,
  ADMIN;

  /** Whether this role includes {@code required}. */
  public boolean allows(Role required) {
    return compareTo(required) >= 0;
  }

  /** The name as written in tokens files and answers: lower case. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Reads {@code viewer}, {@code operator} or {@code admin} (any case).
   *
   * @throws IllegalArgumentException naming the value and the choices
   */
  public static Role parse(String text) {
    for (Role r : values()) {
      if (r.name().equalsIgnoreCase(text == null ? "" : text.trim())) {
        return r;
      }
    }
    throw new IllegalArgumentException(
        "role '" + text + "' must be one of viewer, operator, admin");
  }
}
