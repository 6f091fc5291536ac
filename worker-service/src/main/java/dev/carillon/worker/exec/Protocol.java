package dev.carillon.worker.exec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The exec agent's line protocol, version {@value #VERSION}: a stdout line that starts with {@value
 * #PREFIX} followed by one JSON object with a {@code type} is addressed to the worker; every other
 * line is the agent's own output and is ignored.
 *
 * <pre>
 * &#64;carillon {"type":"progress","message":"summarised 3 of 10 files"}
 * &#64;carillon {"type":"result","summary":"10 files, 4,210 words","uri":"file:///tmp/out.json"}
 * </pre>
 *
 * <p>The object may carry {@code "v"}, the protocol version it was written for (default 1). Types
 * this worker does not know, and versions above {@value #VERSION}, are ignored and counted, never
 * fatal: a newer agent still runs on an older worker, and the protocol grows by new types (issue 26
 * adds {@code checkpoint} and {@code effect}). Pure and thread-safe.
 */
final class Protocol {
  /** The start of a protocol line, a space included. */
  static final String PREFIX = "@carillon ";

  /** The version this worker speaks; the context tells the agent. */
  static final int VERSION = 1;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ProtocolLine PLAIN = new ProtocolLine.Plain();

  private Protocol() {}

  /** Reads one stdout line (without its line end). */
  static ProtocolLine parse(String line) {
    if (!line.startsWith(PREFIX)) {
      return PLAIN;
    }
    JsonNode node;
    try {
      node = JSON.readTree(line.substring(PREFIX.length()));
    } catch (JsonProcessingException e) {
      return new ProtocolLine.Malformed("not a JSON object: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      return new ProtocolLine.Malformed("not a JSON object");
    }
    JsonNode v = node.get("v");
    if (v != null && !(v.isInt() && v.intValue() >= 1)) {
      return new ProtocolLine.Malformed("\"v\" must be a whole number from 1");
    }
    if (v != null && v.intValue() > VERSION) {
      return new ProtocolLine.Unknown("v" + v.intValue());
    }
    JsonNode type = node.get("type");
    if (type == null || !type.isTextual()) {
      return new ProtocolLine.Malformed("no \"type\"");
    }
    return switch (type.textValue()) {
      case "progress" -> {
        JsonNode message = node.get("message");
        yield message != null && message.isTextual()
            ? new ProtocolLine.Progress(message.textValue())
            : new ProtocolLine.Malformed("a progress line needs \"message\" as text");
      }
      case "result" -> {
        JsonNode summary = node.get("summary");
        JsonNode uri = node.get("uri");
        if (summary != null && !summary.isTextual() && !summary.isNull()) {
          yield new ProtocolLine.Malformed("a result's \"summary\" must be text");
        }
        if (uri != null && !uri.isTextual() && !uri.isNull()) {
          yield new ProtocolLine.Malformed("a result's \"uri\" must be text");
        }
        yield new ProtocolLine.Result(
            summary == null || summary.isNull() ? "" : summary.textValue(),
            uri == null || uri.isNull() ? null : uri.textValue());
      }
      default -> new ProtocolLine.Unknown(type.textValue());
    };
  }
}
