package dev.carillon.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Reads and writes {@link InstanceMessage} as compact JSON:
 *
 * <pre>
 * {@code {"v":1,"id":123,"task":"daily-digest","window":"2026-03-29","at":"2026-03-29T08:00:00Z"}}
 * </pre>
 *
 * <p>Parsing is strict about what a worker relies on: the value must be a JSON object, every field
 * must be present with the right type, {@code v} must be {@value InstanceMessage#CURRENT_VERSION}
 * and {@code id} positive; anything else throws {@link MalformedMessageException} naming the field
 * and the value. Unknown extra fields are ignored so that a producer can add optional fields
 * without a version bump.
 *
 * <p>Kafka wiring: producers and consumers use the byte-array serdes and call this codec themselves
 * (see {@link KafkaSettings}). A Kafka {@code Deserializer} that throws would make the consumer
 * fail on the same record forever (a poison pill); decoding after {@code poll} lets the consumer
 * log, count and skip a bad record and commit past it.
 *
 * <p>Thread-safe and stateless.
 */
public final class InstanceMessageCodec {
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          // "{...} garbage" and {"id":1,"id":2} are not one well-formed message.
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();
  // Keep rejected payloads readable in logs without echoing megabytes of garbage.
  private static final int PREVIEW_CHARS = 200;

  private InstanceMessageCodec() {}

  /** The JSON bytes (UTF-8) of {@code message}. */
  public static byte[] encode(InstanceMessage message) {
    ObjectNode node = JSON.createObjectNode();
    node.put("v", message.version());
    node.put("id", message.instanceId());
    node.put("task", message.taskId());
    node.put("window", message.windowKey());
    node.put("at", message.publishedAt().toString());
    try {
      return JSON.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON for " + message, e);
    }
  }

  /**
   * Parses a record value.
   *
   * @param bytes the record value; {@code null} (a tombstone) is malformed too
   * @throws MalformedMessageException if the bytes are not a valid version-1 message
   */
  public static InstanceMessage decode(byte[] bytes) {
    if (bytes == null) {
      throw new MalformedMessageException("value is null (tombstone), expected a JSON object");
    }
    JsonNode root;
    try {
      root = JSON.readTree(bytes);
    } catch (JsonProcessingException e) {
      throw new MalformedMessageException(
          "not JSON: " + e.getOriginalMessage() + "; value is " + preview(bytes), e);
    } catch (IOException e) {
      throw new MalformedMessageException("not JSON: " + e + "; value is " + preview(bytes), e);
    }
    if (root == null || !root.isObject()) {
      throw new MalformedMessageException("expected a JSON object, got " + preview(bytes));
    }
    int version = (int) integer(root, "v");
    if (version != InstanceMessage.CURRENT_VERSION) {
      throw new MalformedMessageException(
          "unknown version: field \"v\" is "
              + version
              + ", this reader understands only "
              + InstanceMessage.CURRENT_VERSION);
    }
    long id = integer(root, "id");
    if (id <= 0) {
      throw new MalformedMessageException("field \"id\" must be positive, was " + id);
    }
    String task = text(root, "task");
    String window = text(root, "window");
    String at = text(root, "at");
    Instant publishedAt;
    try {
      publishedAt = Instant.parse(at);
    } catch (DateTimeParseException e) {
      throw new MalformedMessageException(
          "field \"at\" must be an ISO-8601 instant such as 2026-03-29T08:00:00Z, was \""
              + at
              + "\"",
          e);
    }
    return new InstanceMessage(version, id, task, window, publishedAt);
  }

  /** The first characters of a payload, for log lines about records that did not parse. */
  public static String preview(byte[] bytes) {
    if (bytes == null) {
      return "null";
    }
    String s = new String(bytes, StandardCharsets.UTF_8);
    return s.length() <= PREVIEW_CHARS
        ? "'" + s + "'"
        : "'" + s.substring(0, PREVIEW_CHARS) + "...' (" + bytes.length + " bytes)";
  }

  private static long integer(JsonNode root, String field) {
    JsonNode n = root.get(field);
    if (n == null || n.isNull()) {
      throw new MalformedMessageException("missing field \"" + field + "\"");
    }
    if (!n.isIntegralNumber() || !n.canConvertToLong()) {
      throw new MalformedMessageException(
          "field \"" + field + "\" must be an integer, was " + n.toString());
    }
    long v = n.longValue();
    if (field.equals("v") && (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)) {
      throw new MalformedMessageException("field \"v\" is out of range: " + v);
    }
    return v;
  }

  private static String text(JsonNode root, String field) {
    JsonNode n = root.get(field);
    if (n == null || n.isNull()) {
      throw new MalformedMessageException("missing field \"" + field + "\"");
    }
    if (!n.isTextual()) {
      throw new MalformedMessageException(
          "field \"" + field + "\" must be a string, was " + n.toString());
    }
    String s = n.textValue();
    if (s.isBlank()) {
      throw new MalformedMessageException("field \"" + field + "\" must not be blank");
    }
    return s;
  }
}
