package dev.carillon.model.instance;

/**
 * Says in plain words what one event in an instance's history means: the words {@code schedctl
 * why}, {@code schedctl describe} and the API's {@code why} and events share.
 */
public final class EventText {
  private EventText() {}

  /**
   * E.g. "claimed by worker-7 (attempt 2)", "failed on attempt 2: timeout calling search", "skipped
   * by trigger: previous window still RUNNING".
   */
  public static String of(InstanceEvent e) {
    String who = e.actor();
    String why = e.reason() == null || e.reason().isBlank() ? "" : ": " + e.reason();
    String attempt = e.attempt() == null ? "" : " (attempt " + e.attempt() + ")";
    return switch (e.kind()) {
      case DECISION -> "decided by " + who + " without creating anything" + why + repeated(e);
      case CREATED ->
          e.to() == InstanceStatus.SKIPPED
              ? "recorded as SKIPPED by " + who + why
              : "created " + e.to() + " by " + who + why;
      case TRANSITION -> transition(e.from(), e.to(), who, attempt, why);
    };
  }

  /** For a decision that stands for several: how many, and the last time. */
  private static String repeated(InstanceEvent e) {
    return e.repeats() <= 1
        ? ""
        : " ("
            + e.repeats()
            + " times in a row"
            + (e.lastAt() == null ? "" : ", last at " + e.lastAt())
            + ")";
  }

  private static String transition(
      InstanceStatus from, InstanceStatus to, String who, String attempt, String why) {
    if (from == null || to == null) {
      return "changed by " + who + why;
    }
    if (from == InstanceStatus.PENDING && to == InstanceStatus.RUNNING) {
      return "claimed by " + who + attempt;
    }
    if (from == InstanceStatus.RUNNING) {
      return switch (to) {
        case SUCCESS -> "succeeded" + attempt + ", reported by " + who;
        case FAILED -> "failed" + attempt + why;
        case TIMEOUT -> "timed out" + attempt + ", noticed by " + who + why;
        case PENDING -> "released by " + who + attempt + " without using a retry" + why;
        case CANCELLED -> "cancelled while running by " + who + attempt + why;
        default -> from + " -> " + to + " by " + who + why;
      };
    }
    return switch (to) {
      case RETRY_WAIT -> "retry scheduled by " + who + why;
      case DEAD -> "declared DEAD by " + who + " (no retry left or allowed)" + why;
      case CANCELLED -> "cancelled by " + who + " (was " + from + ")" + why;
      case SKIPPED -> "skipped by " + who + why;
      case PENDING ->
          from == InstanceStatus.RETRY_WAIT
              ? "retried: back to PENDING by " + who + why
              : "re-run by " + who + " (was " + from + ")" + why;
      default -> from + " -> " + to + " by " + who + why;
    };
  }
}
