package dev.carillon.worker.exec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.carillon.api.AgentContext;
import dev.carillon.api.Checkpoint;
import dev.carillon.worker.run.RunRecords;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A run's context as an agent outside the JVM receives it: one JSON object (an exec agent's stdin,
 * an http agent's request body) and, for exec agents, the same values as {@code CARILLON_*}
 * environment variables.
 *
 * <pre>
 * {"protocol":2,"taskId":"file-summary","windowKey":"2026-12-01T10:00:00Z",
 *  "windowStart":"...","windowEnd":"...","scheduledAt":"...","startedAt":"...",
 *  "deadline":"2026-12-01T10:05:00Z","attempt":2,"retryCount":1,
 *  "idempotencyKey":"file-summary/2026-12-01T10:00:00Z",
 *  "previousFailure":"exit 75 (EX_TEMPFAIL, retryable): input not ready",
 *  "traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","params":{...},
 *  "resume":{"lastCheckpoint":{"state":{"done":3},"attempt":1,"savedAt":"..."},
 *            "effects":{"post":{"done":true,"result":"msg-17","attempt":1}},
 *            "effectKeyPrefix":"file-summary/2026-12-01T10:00:00Z/"}}
 * </pre>
 *
 * Times are ISO-8601 instants in UTC; {@code previousFailure} is {@code null} on a first attempt;
 * {@code traceparent} is the run span's W3C trace context ({@link AgentContext#traceparent()}), to
 * pass on to the services the agent calls. {@code resume} ({@link #resume}) is what earlier
 * attempts of the window left: the last checkpoint ({@code null} when none) and the effects
 * recorded so far, by key ({@code "done": false} means started and never recorded: in doubt).
 * Thread-safe.
 */
public final class RunContext {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RunContext() {}

  /**
   * What earlier attempts left ({@code resume} in the context), read from the run's records once;
   * see the class comment.
   *
   * @throws java.io.UncheckedIOException when the records cannot be read
   */
  public static ObjectNode resume(AgentContext c, RunRecords records) {
    ObjectNode resume = JSON.createObjectNode();
    Optional<Checkpoint> last = records.lastCheckpoint();
    if (last.isPresent()) {
      ObjectNode cp = resume.putObject("lastCheckpoint");
      cp.set("state", tree(last.get().stateJson()));
      cp.put("attempt", last.get().attempt());
      cp.put("savedAt", last.get().savedAt().toString());
    } else {
      resume.putNull("lastCheckpoint");
    }
    ObjectNode effects = resume.putObject("effects");
    new TreeMap<>(records.effects())
        .forEach(
            (key, e) -> {
              ObjectNode o = effects.putObject(key);
              o.put("done", e.done());
              o.put("result", e.result());
              o.put("attempt", e.attempt());
            });
    resume.put("effectKeyPrefix", c.idempotencyKey() + "/");
    return resume;
  }

  /** The context as a JSON object, with what earlier attempts left ({@link #resume}). */
  public static String json(AgentContext c, JsonNode resume) {
    ObjectNode o = context(c);
    o.set("resume", resume);
    return write(o);
  }

  /** The context as a JSON object, without {@code resume}. */
  public static String json(AgentContext c) {
    return write(context(c));
  }

  private static String write(ObjectNode o) {
    try {
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a run context as JSON", e);
    }
  }

  private static ObjectNode context(AgentContext c) {
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
    o.set("params", tree(c.paramsJson()));
    return o;
  }

  /**
   * The context as environment variables: {@code CARILLON_PROTOCOL}, {@code CARILLON_TASK_ID},
   * {@code CARILLON_WINDOW_KEY}, {@code CARILLON_WINDOW_START}, {@code CARILLON_WINDOW_END}, {@code
   * CARILLON_SCHEDULED_AT}, {@code CARILLON_STARTED_AT}, {@code CARILLON_DEADLINE}, {@code
   * CARILLON_ATTEMPT}, {@code CARILLON_RETRY_COUNT}, {@code CARILLON_IDEMPOTENCY_KEY}, {@code
   * CARILLON_PARAMS} (the params as JSON), after a failed attempt {@code
   * CARILLON_PREVIOUS_FAILURE}, and {@code TRACEPARENT}, the run span's W3C trace context under the
   * name OpenTelemetry's SDKs read in a child process. The exec execution adds {@code
   * CARILLON_RESUME_FILE}, a file holding the context's {@code resume} object.
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

  /** A JSON object's text as a tree (params, a checkpoint's state: both checked as objects). */
  private static JsonNode tree(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      // Params and checkpoint states are checked as one JSON object when they are made; this
      // cannot happen.
      throw new IllegalStateException("not JSON: " + e.getOriginalMessage(), e);
    }
  }
}
