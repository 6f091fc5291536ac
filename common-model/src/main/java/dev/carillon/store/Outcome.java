package dev.carillon.store;

import dev.carillon.model.instance.InstanceStatus;
import java.util.Objects;

/**
 * How a running attempt ended, as the worker reports it. Applied with a fenced compare-and-set.
 *
 * @param status SUCCESS, FAILED or TIMEOUT
 * @param summary the (possibly truncated) result summary, for SUCCESS
 * @param truncated the summary was cut to the configured size
 * @param uri the artifact URI, for SUCCESS; may be null
 * @param reason failure reason (exception class and message), at most 512 characters
 * @param nonRetryable the failure must not be retried
 */
public record Outcome(
    InstanceStatus status,
    String summary,
    boolean truncated,
    String uri,
    String reason,
    boolean nonRetryable) {
  public static final int MAX_REASON = 512;

  public Outcome {
    Objects.requireNonNull(status, "status");
    if (status != InstanceStatus.SUCCESS
        && status != InstanceStatus.FAILED
        && status != InstanceStatus.TIMEOUT) {
      throw new IllegalArgumentException("an outcome is SUCCESS, FAILED or TIMEOUT, not " + status);
    }
    reason = clip(reason);
  }

  public static Outcome success(String summary, boolean truncated, String uri) {
    return new Outcome(InstanceStatus.SUCCESS, summary, truncated, uri, null, false);
  }

  public static Outcome failure(String reason, boolean nonRetryable) {
    return new Outcome(InstanceStatus.FAILED, null, false, null, reason, nonRetryable);
  }

  public static Outcome timeout(String reason) {
    return new Outcome(InstanceStatus.TIMEOUT, null, false, null, reason, false);
  }

  /** Cuts a reason to {@link #MAX_REASON} characters, marking the cut. */
  public static String clip(String reason) {
    if (reason == null || reason.length() <= MAX_REASON) {
      return reason;
    }
    return reason.substring(0, MAX_REASON - 3) + "...";
  }
}
