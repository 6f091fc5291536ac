package dev.carillon.worker.exec;

import dev.carillon.api.AgentContext;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/** A run's context with fixed values that keeps every progress report. */
final class FixedContext implements AgentContext {
  static final Instant STARTED = Instant.parse("2026-12-01T10:00:00Z");

  final List<String> progress = new CopyOnWriteArrayList<>();
  final AtomicBoolean cancelled = new AtomicBoolean();
  private final String paramsJson;
  private final Duration timeout;
  private final String previousFailure;

  FixedContext(String paramsJson) {
    this(paramsJson, Duration.ofMinutes(1), null);
  }

  FixedContext(String paramsJson, Duration timeout, String previousFailure) {
    this.paramsJson = paramsJson;
    this.timeout = timeout;
    this.previousFailure = previousFailure;
  }

  @Override
  public String taskId() {
    return "exec-test";
  }

  @Override
  public String windowKey() {
    return "2026-12-01";
  }

  @Override
  public Instant windowStart() {
    return Instant.parse("2026-12-01T00:00:00Z");
  }

  @Override
  public Instant windowEnd() {
    return Instant.parse("2026-12-02T00:00:00Z");
  }

  @Override
  public Instant scheduledAt() {
    return Instant.parse("2026-12-01T09:59:59Z");
  }

  @Override
  public Instant startedAt() {
    return STARTED;
  }

  @Override
  public int attempt() {
    return 2;
  }

  @Override
  public int retryCount() {
    return 1;
  }

  @Override
  public Optional<String> previousFailureReason() {
    return Optional.ofNullable(previousFailure);
  }

  /** A run span's context, as the worker's context gives one. */
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Override
  public Optional<String> traceparent() {
    return Optional.of(TRACEPARENT);
  }

  @Override
  public Instant deadline() {
    return STARTED.plus(timeout);
  }

  @Override
  public String paramsJson() {
    return paramsJson;
  }

  @Override
  public void heartbeat(String text) {
    progress.add(text);
  }

  @Override
  public boolean isCancelled() {
    return cancelled.get();
  }
}
