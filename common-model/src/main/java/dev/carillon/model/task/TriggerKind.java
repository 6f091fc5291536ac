package dev.carillon.model.task;

/**
 * The kind of a task's {@link Trigger}, as stored in {@code task_definition.trigger_kind} and shown
 * to operators; each trigger record names its own.
 */
public enum TriggerKind {
  /** Fire times of a cron expression ({@link CronTrigger}). */
  CRON,
  /** One instant: a one-shot task ({@link AtTrigger}). */
  AT,
  /** Every upstream's instance of a window succeeded ({@link DependencyTrigger}). */
  DEPENDENCY,
  /** A record on a Kafka topic ({@link EventTrigger}). */
  EVENT,
  /** A plugin predicate held for its debounce count ({@link ConditionTrigger}). */
  CONDITION
}
