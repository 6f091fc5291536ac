package dev.carillon.trigger.plan;

/** Why the trigger recorded a window as SKIPPED; the metric tag and the log wording. */
public enum SkipReason {
  /** The fire time is older than the task's catch-up window. */
  OUTSIDE_CATCHUP("outside catch-up window"),
  /** Overlap policy SKIP, and an earlier window of the task is still live. */
  OVERLAP("previous window still live");

  private final String text;

  SkipReason(String text) {
    this.text = text;
  }

  /** The short reason, e.g. {@code outside catch-up window}. */
  public String text() {
    return text;
  }
}
