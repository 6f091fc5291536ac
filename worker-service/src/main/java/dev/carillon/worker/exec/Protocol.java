package dev.carillon.worker.exec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Set;

/**
 * The exec agent's line protocol, version {@value #VERSION}: a stdout line that starts with {@value
 * #PREFIX} followed by one JSON object with a {@code type} is addressed to the worker; every other
 * line is the agent's own output and is ignored.
 *
 * <pre>
 * &#64;carillon {"type":"progress","message":"summarised 3 of 10 files"}
 * &#64;carillon {"type":"checkpoint","state":{"done":3}}
 * &#64;carillon {"type":"effect","key":"post-digest","phase":"start"}
 * &#64;carillon {"type":"effect","key":"post-digest","result":"msg-17"}
 * &#64;carillon {"type":"result","summary":"10 files, 4,210 words","uri":"file:///tmp/out.json"}
 * </pre>
 *
 * <p>Version 2 added {@code checkpoint} (the state, one JSON object, stored as {@code
 * AgentContext.checkpoint} stores it) and {@code effect} ({@code "phase":"start"} before the agent
 * performs an effect, so that a later attempt knows it may have happened; {@code "phase":"done"},
 * the default, with its {@code result} once it did), and the context's {@code resume}. The object
 * may carry {@code "v"}, the protocol version it was written for (default 1). Types this worker
 * does not know, and versions above {@value #VERSION}, are ignored and counted, never fatal: a
 * newer agent still runs on an older worker. Pure and thread-safe.
 */
final class Protocol {
  /** The start of a protocol line, a space included. */
  static final String PREFIX = "@carillon ";

  /** The version this worker speaks; the context tells the agent. */
  static final int VERSION = 2;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ProtocolLine PLAIN = new ProtocolLine.Plain();
  private static final Set<String> PHASES = Set.of("start", "done");

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
      case "checkpoint" -> {
        JsonNode state = node.get("state");
        yield state != null && state.isObject()
            ? new ProtocolLine.Checkpoint(state.toString())
            : new ProtocolLine.Malformed("a checkpoint line needs \"state\" as a JSON object");
      }
      case "effect" -> {
        JsonNode key = node.get("key");
        JsonNode phase = node.get("phase");
        JsonNode result = node.get("result");
        if (key == null || !key.isTextual()) {
          yield new ProtocolLine.Malformed("an effect line needs \"key\" as text");
        }
        if (phase != null && !(phase.isTextual() && PHASES.contains(phase.textValue()))) {
          yield new ProtocolLine.Malformed("an effect's \"phase\" must be \"start\" or \"done\"");
        }
        if (result != null && !result.isTextual() && !result.isNull()) {
          yield new ProtocolLine.Malformed("an effect's \"result\" must be text");
        }
        yield new ProtocolLine.Effect(
            key.textValue(),
            phase != null && phase.textValue().equals("start"),
            result == null || result.isNull() ? null : result.textValue());
      }
      default -> new ProtocolLine.Unknown(type.textValue());
    };
  }
}
