package dev.carillon.model.instance;

import java.time.Instant;

/**
 * One line of an instance's history: a transition, or a trigger decision that created nothing.
 *
 * @param instanceId the instance, or {@code null} for a decision about a window with no row
 * @param from the status before, {@code null} for a creation or a decision
 * @param to the status after, {@code null} for a decision
 * @param actor who acted: {@code trigger}, a worker id, {@code retry}, {@code operator}
 */
public record InstanceEvent(
    long id,
    Long instanceId,
    String taskId,
    String windowKey,
    Kind kind,
    InstanceStatus from,
    InstanceStatus to,
    Integer attempt,
    String actor,
    String reason,
    Instant at) {

  /** What an event records. */
  public enum Kind {
    /** A row was created. */
    CREATED,
    /** A status changed. */
    TRANSITION,
    /** A decision that changed no row (e.g. "window exists, status RUNNING"). */
    DECISION
  }
}
