package dev.carillon.logging;

import dev.carillon.config.ConfigException;
import java.util.Locale;
import java.util.Map;

/**
 * The log format a service writes, chosen by the environment variable {@value #ENV}: {@code text}
 * (the default: one line per event, for people) or {@code json} (one JSON object per line, with the
 * MDC fields, for log pipelines). The shipped {@code logback.xml} routes to the appender of that
 * name; this class refuses any other value before the service starts, because logback would
 * otherwise write nothing at all.
 */
public final class LogFormat {
  /** The variable that chooses the format. */
  public static final String ENV = "CARILLON_LOG_FORMAT";

  private LogFormat() {}

  /**
   * Checks the variable in {@code env}.
   *
   * @return {@code text} or {@code json}
   * @throws ConfigException naming the variable and its value when it is neither
   */
  public static String check(Map<String, String> env) {
    String v = env.get(ENV);
    if (v == null || v.isBlank()) {
      return "text";
    }
    String format = v.trim();
    if (format.equals("text") || format.equals("json")) {
      return format;
    }
    throw new ConfigException(
        ENV
            + " = '"
            + v
            + "' is not a log format: use text or json"
            + (format.toLowerCase(Locale.ROOT).equals(format) ? "" : " (lower case)"));
  }
}
