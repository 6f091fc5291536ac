package dev.carillon.worker.run;

import dev.carillon.api.AgentContext;
import dev.carillon.model.instance.ClaimedInstance;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The worker's {@link AgentContext}: fixed values from the claimed instance and its task, a
 * cancellation flag the worker sets, and the latest progress report. Thread-safe; nothing here does
 * IO.
 */
final class WorkerAgentContext implements AgentContext {
  private static final int MAX_PROGRESS_CHARS = 300;

  private final ClaimedInstance instance;
  private final String paramsJson;
  private final Instant startedAt;
  private final Instant deadline;
  private final AtomicBoolean cancelled = new AtomicBoolean();
  private volatile String progress;

  WorkerAgentContext(
      ClaimedInstance instance, String paramsJson, Instant startedAt, Instant deadline) {
    this.instance = instance;
    this.paramsJson = paramsJson == null || paramsJson.isBlank() ? "{}" : paramsJson;
    this.startedAt = startedAt;
    this.deadline = deadline;
  }

  void cancel() {
    cancelled.set(true);
  }

  /** The latest progress report, or {@code null}. */
  String progress() {
    return progress;
  }

  @Override
  public String taskId() {
    return instance.taskId();
  }

  @Override
  public String windowKey() {
    return instance.windowKey();
  }

  @Override
  public Instant windowStart() {
    return instance.windowStart();
  }

  @Override
  public Instant windowEnd() {
    return instance.windowEnd();
  }

  @Override
  public Instant scheduledAt() {
    return instance.scheduledAt();
  }

  @Override
  public Instant startedAt() {
    return startedAt;
  }

  @Override
  public int attempt() {
    return instance.attempt();
  }

  @Override
  public int retryCount() {
    return instance.retryCount();
  }

  @Override
  public Optional<String> previousFailureReason() {
    return Optional.ofNullable(instance.previousFailure());
  }

  @Override
  public Instant deadline() {
    return deadline;
  }

  @Override
  public String paramsJson() {
    return paramsJson;
  }

  @Override
  public void heartbeat(String text) {
    if (cancelled.get()) {
      return;
    }
    progress =
        text == null || text.length() <= MAX_PROGRESS_CHARS
            ? text
            : text.substring(0, MAX_PROGRESS_CHARS);
  }

  @Override
  public boolean isCancelled() {
    return cancelled.get();
  }
}
