package dev.carillon.logging;

import java.util.HashMap;
import java.util.Map;
import org.slf4j.MDC;

/**
 * Puts an instance's identity in the logging context (SLF4J's MDC) of the current thread for as
 * long as code works on its behalf, so that every line written then, by Carillon or by an agent,
 * carries {@value #TASK}, {@value #WINDOW}, {@value #INSTANCE} and {@value #ATTEMPT} (JSON logs as
 * fields, text logs where the pattern names them). Use with try-with-resources; {@link #close()}
 * restores what the keys held before, so scopes nest.
 *
 * <pre>{@code
 * try (InstanceMdc mdc = InstanceMdc.instance(task, window, id, attempt)) {
 *   log.info("Starting ...");
 * }
 * }</pre>
 *
 * <p>Not shared between threads: each scope belongs to the thread that opened it.
 */
public final class InstanceMdc implements AutoCloseable {
  /** The task id. */
  public static final String TASK = "task";

  /** The window key. */
  public static final String WINDOW = "window";

  /** The instance id. */
  public static final String INSTANCE = "instance";

  /** The attempt number. */
  public static final String ATTEMPT = "attempt";

  /** The instance's trace id (see {@code dev.carillon.trace.InstanceTraceIds}). */
  public static final String TRACE_ID = "trace_id";

  private final Map<String, String> previous = new HashMap<>(8);

  private InstanceMdc() {}

  /** A scope naming one attempt of one instance. */
  public static InstanceMdc instance(
      String taskId, String windowKey, long instanceId, int attempt) {
    return new InstanceMdc()
        .put(TASK, taskId)
        .put(WINDOW, windowKey)
        .put(INSTANCE, Long.toString(instanceId))
        .put(ATTEMPT, Integer.toString(attempt));
  }

  /** A scope naming an instance whose attempt is not at hand (or not the point). */
  public static InstanceMdc instance(String taskId, String windowKey, long instanceId) {
    return new InstanceMdc()
        .put(TASK, taskId)
        .put(WINDOW, windowKey)
        .put(INSTANCE, Long.toString(instanceId));
  }

  /** A scope naming a task and, when not null, a window (a tick's lines about one task). */
  public static InstanceMdc task(String taskId, String windowKey) {
    InstanceMdc m = new InstanceMdc().put(TASK, taskId);
    return windowKey == null ? m : m.put(WINDOW, windowKey);
  }

  /** Adds the trace id to this scope. */
  public InstanceMdc traceId(String traceId) {
    return put(TRACE_ID, traceId);
  }

  private InstanceMdc put(String key, String value) {
    if (!previous.containsKey(key)) {
      previous.put(key, MDC.get(key));
    }
    if (value == null) {
      MDC.remove(key);
    } else {
      MDC.put(key, value);
    }
    return this;
  }

  @Override
  public void close() {
    previous.forEach(
        (k, v) -> {
          if (v == null) {
            MDC.remove(k);
          } else {
            MDC.put(k, v);
          }
        });
  }
}
