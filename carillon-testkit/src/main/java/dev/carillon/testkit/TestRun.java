package dev.carillon.testkit;

import dev.carillon.api.Stability;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One run for {@link AgentHarness#run(TestRun)}: which handler, with which params and timeout, for
 * which task and window. Start from {@link #of(String)} and change what matters with the {@code
 * with} methods; each returns a new value.
 *
 * @param handler the {@code AgentTask.type()} to run
 * @param paramsJson the task's params, a JSON object as text
 * @param timeout the task's timeout: the run's deadline is its start plus this (1 s to 24 h)
 * @param taskId the task id, or empty for one the harness makes up (unique per run)
 * @param window the business window, or empty for the UTC day of the run's creation
 */
@Stability.Evolving
public record TestRun(
    String handler,
    String paramsJson,
    Duration timeout,
    Optional<String> taskId,
    Optional<TestRun.Window> window) {

  /** The timeout of a run unless {@link #withTimeout} sets one. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Checks the values.
   *
   * @throws NullPointerException naming the component that is {@code null}
   */
  public TestRun {
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(paramsJson, "paramsJson");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(window, "window");
  }

  /**
   * A run of {@code handler} with params {@code {}}, a timeout of {@link #DEFAULT_TIMEOUT}, a task
   * of its own and the current UTC day as window.
   *
   * @param handler the {@code AgentTask.type()} to run
   * @return the run
   */
  public static TestRun of(String handler) {
    return new TestRun(handler, "{}", DEFAULT_TIMEOUT, Optional.empty(), Optional.empty());
  }

  /**
   * The same run with these params.
   *
   * @param json a JSON object as text (the harness refuses what a task definition would refuse)
   * @return a new run
   */
  public TestRun withParams(String json) {
    return new TestRun(handler, json, timeout, taskId, window);
  }

  /**
   * The same run with this timeout.
   *
   * @param value 1 s to 24 h, like a task definition's timeout
   * @return a new run
   */
  public TestRun withTimeout(Duration value) {
    return new TestRun(handler, paramsJson, value, taskId, window);
  }

  /**
   * The same run under this task id. Two runs of one task need different windows: a task has one
   * instance per window.
   *
   * @param value a task id, {@code [a-z0-9][a-z0-9._-]{0,63}}
   * @return a new run
   */
  public TestRun withTaskId(String value) {
    return new TestRun(handler, paramsJson, timeout, Optional.of(value), window);
  }

  /**
   * The same run for this window.
   *
   * @param key the window key, 1 to 64 characters
   * @param start the inclusive start
   * @param end the exclusive end
   * @return a new run
   */
  public TestRun withWindow(String key, Instant start, Instant end) {
    return new TestRun(
        handler, paramsJson, timeout, taskId, Optional.of(new Window(key, start, end)));
  }

  /**
   * A business window.
   *
   * @param key the window key
   * @param start the inclusive start
   * @param end the exclusive end
   */
  @Stability.Evolving
  public record Window(String key, Instant start, Instant end) {
    /**
     * Checks the values.
     *
     * @throws NullPointerException naming the component that is {@code null}
     */
    public Window {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(start, "start");
      Objects.requireNonNull(end, "end");
    }
  }
}
