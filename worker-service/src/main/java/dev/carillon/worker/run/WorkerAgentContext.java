package dev.carillon.worker.run;

import dev.carillon.api.AgentContext;
import dev.carillon.api.Checkpoint;
import dev.carillon.api.Effect;
import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.instance.Progress;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The worker's {@link AgentContext}: fixed values from the claimed instance and its task, a
 * cancellation flag the worker sets, and the run's progress reports, kept in its {@link
 * RunProgress} (at most {@value Progress#MAX_CHARS} characters each, timed by the worker's clock),
 * and the run's checkpoints and effects ({@link ResumeRecords}, the only part that does IO).
 * Thread-safe.
 */
final class WorkerAgentContext implements AgentContext {
  private final ClaimedInstance instance;
  private final String paramsJson;
  private final Instant startedAt;
  private final Instant deadline;
  private final String traceparent;
  private final RunProgress progress;
  private final Clock clock;
  private final ResumeRecords resume;
  private final AtomicBoolean cancelled = new AtomicBoolean();

  WorkerAgentContext(
      ClaimedInstance instance,
      String paramsJson,
      Instant startedAt,
      Instant deadline,
      RunProgress progress,
      Clock clock,
      ResumeRecords resume) {
    this(instance, paramsJson, startedAt, deadline, progress, clock, resume, null);
  }

  /**
   * @param traceparent the run span's W3C context, or {@code null}
   */
  WorkerAgentContext(
      ClaimedInstance instance,
      String paramsJson,
      Instant startedAt,
      Instant deadline,
      RunProgress progress,
      Clock clock,
      ResumeRecords resume,
      String traceparent) {
    this.traceparent = traceparent;
    this.instance = instance;
    this.paramsJson = paramsJson == null || paramsJson.isBlank() ? "{}" : paramsJson;
    this.startedAt = startedAt;
    this.deadline = deadline;
    this.progress = progress;
    this.clock = clock;
    this.resume = resume;
  }

  void cancel() {
    cancelled.set(true);
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
    progress.report(Progress.of(text, clock.instant()));
  }

  @Override
  public void checkpoint(String stateJson) {
    resume.checkpoint(stateJson);
  }

  @Override
  public Optional<Checkpoint> lastCheckpoint() {
    return resume.lastCheckpoint();
  }

  @Override
  public String once(String key, Effect effect) throws Exception {
    return resume.once(key, effect);
  }

  @Override
  public Optional<String> traceparent() {
    return Optional.ofNullable(traceparent);
  }

  @Override
  public boolean isCancelled() {
    return cancelled.get();
  }
}
