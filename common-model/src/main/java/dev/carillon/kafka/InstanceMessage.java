package dev.carillon.kafka;

import java.time.Instant;
import java.util.Objects;

/**
 * "Instance {@code instanceId} is ready to run": the value of a record on {@link Topics#INSTANCES}.
 *
 * <p>The message carries only the id and enough context to log and route it; the worker reads the
 * instance row and claims it with a compare-and-set, so a duplicate or stale message is harmless.
 *
 * @param version the message format version; {@link #CURRENT_VERSION} for messages written now
 * @param instanceId the {@code task_instance.id}, positive
 * @param taskId the task the instance belongs to; also the record key
 * @param windowKey the instance's business window, e.g. {@code 2026-03-29T08:00}
 * @param publishedAt when the publisher sent the message (for lag metrics, not for decisions)
 */
public record InstanceMessage(
    int version, long instanceId, String taskId, String windowKey, Instant publishedAt) {

  /** The format this code writes and the only one it reads. */
  public static final int CURRENT_VERSION = 1;

  public InstanceMessage {
    if (version < 1) {
      throw new IllegalArgumentException("version must be at least 1, was " + version);
    }
    if (instanceId <= 0) {
      throw new IllegalArgumentException("instanceId must be positive, was " + instanceId);
    }
    if (taskId == null || taskId.isBlank()) {
      throw new IllegalArgumentException("taskId must not be blank, was '" + taskId + "'");
    }
    if (windowKey == null || windowKey.isBlank()) {
      throw new IllegalArgumentException("windowKey must not be blank, was '" + windowKey + "'");
    }
    Objects.requireNonNull(publishedAt, "publishedAt");
  }

  /** A message in the {@linkplain #CURRENT_VERSION current format}. */
  public static InstanceMessage of(
      long instanceId, String taskId, String windowKey, Instant publishedAt) {
    return new InstanceMessage(CURRENT_VERSION, instanceId, taskId, windowKey, publishedAt);
  }
}
