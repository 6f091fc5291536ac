package dev.carillon.model.instance;

/** Why an instance row exists. */
public enum Origin {
  /** The cron trigger fired on time. */
  SCHEDULE,
  /** The trigger caught up a window missed while it was down, inside the catch-up window. */
  CATCHUP,
  /** An operator asked for a past range ({@code schedctl backfill}). */
  BACKFILL,
  /** A record on a subscribed Kafka topic. */
  EVENT,
  /** Every upstream of a dependency trigger succeeded for the window. */
  DEPENDENCY,
  /** A condition predicate held for its debounce count. */
  CONDITION,
  /** An operator created or re-ran it by hand. */
  MANUAL
}
