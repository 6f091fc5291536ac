package dev.carillon.spec;

import java.util.Locale;

/** The text formats a spec may be written in; both read into the same values. */
public enum Format {
  /** YAML 1.1, as {@code schedctl apply} files are written. */
  YAML,
  /** JSON, as the HTTP API accepts specs. */
  JSON;

  /** JSON for a name ending in {@code .json} (any case), YAML otherwise. */
  public static Format ofFileName(String name) {
    return name != null && name.toLowerCase(Locale.ROOT).endsWith(".json") ? JSON : YAML;
  }
}
