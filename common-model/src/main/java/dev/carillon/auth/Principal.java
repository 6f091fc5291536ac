package dev.carillon.auth;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Who called: the name a token was issued to, and its role. Changes made through the API record
 * {@link #actor()} in the instance and task histories.
 *
 * @param name letters, digits and {@code . _ @ -}, 1 to 64 characters
 */
public record Principal(String name, Role role) {
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

  public Principal {
    Objects.requireNonNull(role, "role");
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("principal '" + name + "' must match " + NAME.pattern());
    }
  }

  /** The actor written to the event logs: {@code api:<name>}. */
  public String actor() {
    return "api:" + name;
  }
}
