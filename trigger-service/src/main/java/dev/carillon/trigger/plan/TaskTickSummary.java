package dev.carillon.trigger.plan;

import java.util.Objects;

/**
 * What one tick decided for one task, for one log line per kind: how many windows, and the first
 * one with its reason, so an operator can see why without reading the event log.
 *
 * @param taskId the task
 * @param kind {@code created}, a {@link SkipReason} or a {@link DecisionKind} name
 * @param count how many windows this tick
 * @param firstWindow the oldest window key concerned
 * @param reason the reason recorded for that window
 */
public record TaskTickSummary(
    String taskId, String kind, int count, String firstWindow, String reason) {
  public TaskTickSummary {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(firstWindow, "firstWindow");
    Objects.requireNonNull(reason, "reason");
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1, was " + count);
    }
  }
}
