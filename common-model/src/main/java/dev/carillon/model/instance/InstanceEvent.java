package dev.carillon.model.instance;

import java.time.Instant;

/**
 * One line of an instance's history: a transition, or a trigger decision that created nothing.
 *
 * @param instanceId the instance, or {@code null} for a decision about a window with no row
 * @param from the status before, {@code null} for a creation or a decision
 * @param to the status after, {@code null} for a decision
 * @param actor who acted: {@code trigger}, a worker id, {@code retry}, {@code operator}
 * @param at when it happened (for a repeated decision, the first time)
 * @param repeats how many identical decisions in a row this one stands for (1 for every other
 *     event): a decision equal to the latest event of its window is counted on that row instead of
 *     written again
 * @param lastAt the last time a repeated decision was made; {@code null} when {@code repeats} is 1
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
    Instant at,
    int repeats,
    Instant lastAt) {

  public InstanceEvent {
    if (repeats < 1) {
      throw new IllegalArgumentException("repeats must be at least 1, was " + repeats);
    }
  }

  /** An event that was not repeated. */
  public InstanceEvent(
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
    this(id, instanceId, taskId, windowKey, kind, from, to, attempt, actor, reason, at, 1, null);
  }

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
