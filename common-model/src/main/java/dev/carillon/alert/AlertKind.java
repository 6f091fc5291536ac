package dev.carillon.alert;

/** What an alert is about; {@link #event()} is the {@code event} field of its webhook body. */
public enum AlertKind {
  /** A cron fire time became an instance later than its task's bound (trigger). */
  LATE_FIRE("fire.late"),
  /**
   * Windows older than their task's catch-up limit were recorded SKIPPED, never to run (trigger).
   */
  WINDOWS_SKIPPED("windows.skipped"),
  /** An instance entered DEAD, the manual-intervention queue (retry service). */
  DEAD("instance.dead"),
  /** Work waits longer than the backlog bound: PENDING, undispatched or overdue retries (retry). */
  BACKLOG("backlog.growing");

  private final String event;

  AlertKind(String event) {
    this.event = event;
  }

  /** The webhook body's {@code event} value, e.g. {@code fire.late}. */
  public String event() {
    return event;
  }

  /** The metric label, e.g. {@code late_fire}. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
