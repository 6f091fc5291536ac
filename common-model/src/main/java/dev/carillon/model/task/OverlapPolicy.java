package dev.carillon.model.task;

/** What the trigger does with a new window while an earlier window of the same task is live. */
public enum OverlapPolicy {
  /** Record the new window as SKIPPED, naming the blocking instance. The default. */
  SKIP,
  /** Run the new window concurrently. */
  ALLOW
}
