package dev.carillon.model.instance;

import dev.carillon.model.schedule.Window;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A row the trigger (or an operator) wants to create. Whether it is created is decided by the
 * UNIQUE {@code (task_id, window_key)} index, never by a prior read.
 *
 * @param status {@link InstanceStatus#PENDING} to run, {@link InstanceStatus#SKIPPED} to record a
 *     window that will not run
 * @param reason why, for the event log (required for SKIPPED)
 */
public record NewInstance(
    String taskId,
    Window window,
    Instant scheduledAt,
    InstanceStatus status,
    Origin origin,
    Duration timeout,
    int maxRetry,
    String reason) {

  public NewInstance {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(scheduledAt, "scheduledAt");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(timeout, "timeout");
    if (!InstanceStatus.INITIAL.contains(status)) {
      throw new IllegalArgumentException("a new instance starts PENDING or SKIPPED, not " + status);
    }
    if (status == InstanceStatus.SKIPPED && (reason == null || reason.isBlank())) {
      throw new IllegalArgumentException("a SKIPPED instance needs a reason");
    }
  }

  public static NewInstance pending(
      String taskId,
      Window window,
      Instant scheduledAt,
      Origin origin,
      Duration timeout,
      int maxRetry) {
    return new NewInstance(
        taskId, window, scheduledAt, InstanceStatus.PENDING, origin, timeout, maxRetry, null);
  }

  public static NewInstance skipped(
      String taskId,
      Window window,
      Instant scheduledAt,
      Origin origin,
      Duration timeout,
      String reason) {
    return new NewInstance(
        taskId, window, scheduledAt, InstanceStatus.SKIPPED, origin, timeout, 0, reason);
  }
}
