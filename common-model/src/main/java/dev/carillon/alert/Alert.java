package dev.carillon.alert;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One alert: its kind, the key it is throttled by (usually the task id) and the fields of its
 * webhook body, in order.
 *
 * @param kind what it is about
 * @param key what repeats of it are counted by, e.g. the task id; never blank
 * @param fields the body's fields after {@code event}; values are strings, numbers or booleans
 */
public record Alert(AlertKind kind, String key, Map<String, Object> fields) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public Alert {
    Objects.requireNonNull(kind, "kind");
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException("key must not be blank, was '" + key + "'");
    }
    fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
  }

  /** The webhook body: {@code {"event": ..., <fields>}}. */
  public String json() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("event", kind.event());
    body.putAll(fields);
    try {
      return JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the " + kind + " alert of " + key, e);
    }
  }
}
