package dev.carillon.worker.exec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.carillon.api.AgentContext;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A run's context as an agent outside the JVM receives it: one JSON object (an exec agent's stdin,
 * an http agent's request body) and, for exec agents, the same values as {@code CARILLON_*}
 * environment variables.
 *
 * <pre>
 * {"protocol":1,"taskId":"file-summary","windowKey":"2026-12-01T10:00:00Z",
 *  "windowStart":"...","windowEnd":"...","scheduledAt":"...","startedAt":"...",
 *  "deadline":"2026-12-01T10:05:00Z","attempt":2,"retryCount":1,
 *  "idempotencyKey":"file-summary/2026-12-01T10:00:00Z",
 *  "previousFailure":"exit 75 (EX_TEMPFAIL, retryable): input not ready",
 *  "traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","params":{...}}
 * </pre>
 *
 * Times are ISO-8601 instants in UTC; {@code previousFailure} is {@code null} on a first attempt;
 * {@code traceparent} is the run span's W3C trace context ({@link AgentContext#traceparent()}), to
 * pass on to the services the agent calls. Thread-safe.
 */
public final class RunContext {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RunContext() {}

  /** The context as a JSON object. */
  public static String json(AgentContext c) {
    ObjectNode o = JSON.createObjectNode();
    o.put("protocol", Protocol.VERSION);
    o.put("taskId", c.taskId());
    o.put("windowKey", c.windowKey());
    o.put("windowStart", c.windowStart().toString());
    o.put("windowEnd", c.windowEnd().toString());
    o.put("scheduledAt", c.scheduledAt().toString());
    o.put("startedAt", c.startedAt().toString());
    o.put("deadline", c.deadline().toString());
    o.put("attempt", c.attempt());
    o.put("retryCount", c.retryCount());
    o.put("idempotencyKey", c.idempotencyKey());
    o.put("previousFailure", c.previousFailureReason().orElse(null));
    o.put("traceparent", c.traceparent().orElse(null));
    o.set("params", params(c.paramsJson()));
    try {
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a run context as JSON", e);
    }
  }

  /**
   * The context as environment variables: {@code CARILLON_PROTOCOL}, {@code CARILLON_TASK_ID},
   * {@code CARILLON_WINDOW_KEY}, {@code CARILLON_WINDOW_START}, {@code CARILLON_WINDOW_END}, {@code
   * CARILLON_SCHEDULED_AT}, {@code CARILLON_STARTED_AT}, {@code CARILLON_DEADLINE}, {@code
   * CARILLON_ATTEMPT}, {@code CARILLON_RETRY_COUNT}, {@code CARILLON_IDEMPOTENCY_KEY}, {@code
   * CARILLON_PARAMS} (the params as JSON), after a failed attempt {@code
   * CARILLON_PREVIOUS_FAILURE}, and {@code TRACEPARENT}, the run span's W3C trace context under the
   * name OpenTelemetry's SDKs read in a child process.
   */
  public static Map<String, String> env(AgentContext c) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("CARILLON_PROTOCOL", Integer.toString(Protocol.VERSION));
    env.put("CARILLON_TASK_ID", c.taskId());
    env.put("CARILLON_WINDOW_KEY", c.windowKey());
    env.put("CARILLON_WINDOW_START", c.windowStart().toString());
    env.put("CARILLON_WINDOW_END", c.windowEnd().toString());
    env.put("CARILLON_SCHEDULED_AT", c.scheduledAt().toString());
    env.put("CARILLON_STARTED_AT", c.startedAt().toString());
    env.put("CARILLON_DEADLINE", c.deadline().toString());
    env.put("CARILLON_ATTEMPT", Integer.toString(c.attempt()));
    env.put("CARILLON_RETRY_COUNT", Integer.toString(c.retryCount()));
    env.put("CARILLON_IDEMPOTENCY_KEY", c.idempotencyKey());
    env.put("CARILLON_PARAMS", c.paramsJson());
    c.previousFailureReason().ifPresent(r -> env.put("CARILLON_PREVIOUS_FAILURE", r));
    // The W3C name, which OpenTelemetry's SDKs read to continue a trace in a child process.
    c.traceparent().ifPresent(t -> env.put("TRACEPARENT", t));
    return env;
  }

  private static JsonNode params(String paramsJson) {
    try {
      return JSON.readTree(paramsJson);
    } catch (JsonProcessingException e) {
      // Params are checked as one JSON object whenever a definition is built; this cannot happen.
      throw new IllegalStateException("params are not JSON: " + e.getOriginalMessage(), e);
    }
  }
}
