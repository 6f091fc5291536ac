package dev.carillon.trigger.plan;

/** A trigger decision that creates no row; the metric tag and the log wording. */
public enum DecisionKind {
  /** The window exists already (in any state): the insert is a no-op. */
  WINDOW_EXISTS,
  /** The task is paused: the fire time is consumed and nothing is created. */
  TASK_PAUSED
}
