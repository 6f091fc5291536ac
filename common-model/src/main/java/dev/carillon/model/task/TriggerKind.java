package dev.carillon.model.task;

/** What wakes a task; a task has exactly one. Stored in {@code task_definition.trigger_kind}. */
public enum TriggerKind {
  /** Fire times of a cron expression ({@link CronTrigger}). */
  CRON,
  /** Every upstream's instance of a window succeeded ({@link TaskDefinition#after()}). */
  DEPENDENCY,
  /** A record on a Kafka topic ({@link EventTrigger}). */
  EVENT,
  /** A plugin predicate held for its debounce count ({@link ConditionTrigger}). */
  CONDITION
}
