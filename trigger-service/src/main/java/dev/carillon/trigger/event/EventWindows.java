package dev.carillon.trigger.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.task.EventTrigger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;

/**
 * The window of one event record for one event trigger: a pure function of the record's key, value
 * and timestamp, so that the same record (redelivered, duplicated, replayed) always names the same
 * window and the UNIQUE window index turns repeats into no-ops.
 *
 * <p>Without coalescing, a {@code key}/{@code json:} window is the zero-length window at the record
 * time and a {@code bucket:} window is the bucket. With a coalescing bucket, the key gets the
 * bucket's start appended ({@code order-17@2026-11-29T08:00:30Z}) and the window is the bucket, so
 * that one key makes at most one instance per bucket. A key longer than {@link
 * Window#MAX_KEY_LENGTH} is replaced by a SHA-256 digest prefix, which is just as deterministic.
 */
final class EventWindows {
  private static final ObjectMapper JSON = new ObjectMapper();

  private EventWindows() {}

  /** A record that cannot name a window; the message says why. */
  static final class MalformedEventException extends Exception {
    private static final long serialVersionUID = 1L;

    MalformedEventException(String message) {
      super(message);
    }
  }

  static Window windowOf(EventTrigger t, String key, byte[] value, Instant timestamp)
      throws MalformedEventException {
    String base;
    Instant start = timestamp;
    Instant end = timestamp;
    switch (t.key().kind()) {
      case KEY -> {
        if (key == null || key.isBlank()) {
          throw new MalformedEventException("record has no key");
        }
        base = key;
      }
      case JSON -> base = jsonField(value, t.key().field());
      case BUCKET -> {
        start = floor(timestamp, t.key().bucket());
        end = start.plus(t.key().bucket());
        base = start.toString();
      }
      default -> throw new IllegalStateException("unknown key kind " + t.key().kind());
    }
    if (t.coalesces()) {
      Instant bucket = floor(timestamp, t.coalesce());
      base = base + "@" + bucket;
      start = bucket;
      end = bucket.plus(t.coalesce());
    }
    return new Window(fit(base), start, end);
  }

  private static String jsonField(byte[] value, String field) throws MalformedEventException {
    if (value == null) {
      throw new MalformedEventException("record has no value");
    }
    JsonNode node;
    try {
      node = JSON.readTree(value);
    } catch (java.io.IOException e) {
      throw new MalformedEventException("value is not JSON");
    }
    JsonNode f = node == null || !node.isObject() ? null : node.get(field);
    if (f == null || f.isNull() || !f.isValueNode() || f.asText().isBlank()) {
      throw new MalformedEventException("value has no scalar field '" + field + "'");
    }
    return f.asText();
  }

  static Instant floor(Instant t, Duration bucket) {
    long ms = bucket.toMillis();
    return Instant.ofEpochMilli(Math.floorDiv(t.toEpochMilli(), ms) * ms);
  }

  private static String fit(String key) {
    if (key.length() <= Window.MAX_KEY_LENGTH) {
      return key;
    }
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(d).substring(0, Window.MAX_KEY_LENGTH - 7);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always available", e);
    }
  }
}
