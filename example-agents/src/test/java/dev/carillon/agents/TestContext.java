package dev.carillon.agents;

import dev.carillon.api.AgentContext;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/** A fixed context for agent unit tests: one window of task {@code taskId}. */
record TestContext(
    String taskId, String windowKey, int attempt, String paramsJson, AtomicBoolean cancelled)
    implements AgentContext {

  static TestContext of(String paramsJson) {
    return new TestContext("digest-test", "2026-11-29", 1, paramsJson, new AtomicBoolean());
  }

  TestContext withAttempt(int value) {
    return new TestContext(taskId, windowKey, value, paramsJson, cancelled);
  }

  TestContext withKey(String taskId, String windowKey) {
    return new TestContext(taskId, windowKey, attempt, paramsJson, cancelled);
  }

  @Override
  public Instant windowStart() {
    return Instant.parse("2026-11-29T00:00:00Z");
  }

  @Override
  public Instant windowEnd() {
    return Instant.parse("2026-11-30T00:00:00Z");
  }

  @Override
  public Instant scheduledAt() {
    return Instant.parse("2026-11-29T08:00:00Z");
  }

  @Override
  public Instant startedAt() {
    return Instant.parse("2026-11-29T08:00:01Z");
  }

  @Override
  public int retryCount() {
    return 0;
  }

  @Override
  public Optional<String> previousFailureReason() {
    return Optional.empty();
  }

  @Override
  public Instant deadline() {
    return Instant.parse("2026-11-29T08:30:01Z");
  }

  @Override
  public void heartbeat(String progress) {}

  @Override
  public boolean isCancelled() {
    return cancelled.get();
  }
}
