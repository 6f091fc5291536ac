package dev.carillon.agents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.api.NonRetryableException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A task's parameters, read leniently where it is harmless (missing keys get defaults) and strictly
 * where a typo would silently change the behaviour (a wrong type is a {@link
 * NonRetryableException}: running again with the same parameters cannot help).
 */
final class Params {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

  private final String agent;
  private final JsonNode root;

  private Params(String agent, JsonNode root) {
    this.agent = agent;
    this.root = root;
  }

  static Params parse(String agent, String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json == null || json.isBlank() ? "{}" : json);
    } catch (JsonProcessingException e) {
      throw new NonRetryableException(agent + ": params are not JSON: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) {
      throw new NonRetryableException(agent + ": params must be a JSON object, got " + json);
    }
    return new Params(agent, root);
  }

  JsonNode node(String key) {
    JsonNode n = root.get(key);
    return n == null || n.isNull() ? null : n;
  }

  String text(String key, String defaultValue) {
    JsonNode n = node(key);
    if (n == null) {
      return defaultValue;
    }
    if (!n.isTextual()) {
      throw bad(key, n, "a string");
    }
    return n.textValue();
  }

  long integer(String key, long defaultValue, long min, long max) {
    JsonNode n = node(key);
    if (n == null) {
      return defaultValue;
    }
    if (!n.canConvertToLong()
        || !n.isIntegralNumber()
        || n.longValue() < min
        || n.longValue() > max) {
      throw bad(key, n, "a whole number between " + min + " and " + max);
    }
    return n.longValue();
  }

  double decimal(String key, double defaultValue, double min, double max) {
    JsonNode n = node(key);
    if (n == null) {
      return defaultValue;
    }
    if (!n.isNumber() || !(n.doubleValue() >= min && n.doubleValue() <= max)) {
      throw bad(key, n, "a number between " + min + " and " + max);
    }
    return n.doubleValue();
  }

  boolean bool(String key, boolean defaultValue) {
    JsonNode n = node(key);
    if (n == null) {
      return defaultValue;
    }
    if (!n.isBoolean()) {
      throw bad(key, n, "true or false");
    }
    return n.booleanValue();
  }

  /** A duration written as {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h} or ISO-8601. */
  Duration duration(String key, Duration defaultValue) {
    String s = text(key, null);
    if (s == null) {
      return defaultValue;
    }
    Matcher m = SHORT_DURATION.matcher(s.trim().toLowerCase(Locale.ROOT));
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
    }
    try {
      return Duration.parse(s.trim());
    } catch (DateTimeParseException e) {
      throw bad(key, root.get(key), "a duration such as 500ms, 2s, 5m or PT1M");
    }
  }

  private NonRetryableException bad(String key, JsonNode value, String expected) {
    return new NonRetryableException(
        agent + ": param \"" + key + "\" must be " + expected + ", was " + value);
  }
}
