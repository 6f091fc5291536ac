package dev.carillon.model.task;

import java.time.Instant;
import java.util.Objects;

/**
 * One change of a task definition, with who made it.
 *
 * @param version the definition's version after the change
 * @param actor who changed it: {@code api:<principal>}, {@code schedctl:<user>}, ...
 * @param reason why, when the actor said
 */
public record TaskEvent(
    long id, String taskId, Kind kind, long version, String actor, String reason, Instant at) {

  /** What happened to the definition. */
  public enum Kind {
    /** First applied. */
    CREATED,
    /** Applied with a different content. */
    CHANGED,
    /** Applied again after it was deleted. */
    REVIVED,
    /** Paused: the trigger creates no windows for it. */
    PAUSED,
    /** Resumed after a pause. */
    RESUMED,
    /** Deleted (soft): it never fires again; its instances and history stay. */
    DELETED
  }

  public TaskEvent {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(actor, "actor");
  }
}
