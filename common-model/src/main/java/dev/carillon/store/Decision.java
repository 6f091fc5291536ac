package dev.carillon.store;

import java.util.Objects;

/**
 * A decision that changed no row, kept in the event log so that {@code schedctl why} can tell it,
 * e.g. "window exists, status RUNNING".
 *
 * @param instanceId the existing instance the decision is about, if any
 */
public record Decision(
    String taskId, String windowKey, Long instanceId, String actor, String reason) {
  public Decision {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(actor, "actor");
    Objects.requireNonNull(reason, "reason");
  }
}
