package dev.carillon.model.retry;

import dev.carillon.model.schedule.Window;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What a retry policy would do to an instance whose every attempt fails at once: when each retry
 * runs, and where the instance becomes DEAD. Jitter is left out (the middle sample, 0.5), so the
 * plan shows the policy's nominal delays. Pure.
 *
 * @param steps the retries, first to last
 * @param deadReason why the next failure after the last step is DEAD (the policy's own words)
 */
public record PlannedRetries(List<Step> steps, String deadReason) {
  /** The most steps listed, whatever the policy allows. */
  public static final int MAX_STEPS = RetryPolicy.MAX_RETRIES;

  /**
   * One retry.
   *
   * @param retry 1 for the first retry
   * @param delay from the failure before it
   * @param after from the first failure
   * @param at when it runs
   * @param reason the policy's words for it, e.g. {@code retry 2 of 3 in 10m}
   */
  public record Step(int retry, Duration delay, Duration after, Instant at, String reason) {}

  public PlannedRetries {
    steps = List.copyOf(steps);
  }

  /**
   * @param failedAt when the first attempt failed
   * @param window the instance's window (a WINDOW policy stops at its end plus grace)
   */
  public static PlannedRetries of(RetryPolicy policy, Instant failedAt, Window window) {
    List<Step> steps = new ArrayList<>();
    Instant failed = failedAt;
    for (int retryCount = 0; retryCount < MAX_STEPS; retryCount++) {
      RetryDecision d = policy.decide(failed, retryCount, window, false, 0.5);
      if (d.isDead()) {
        return new PlannedRetries(steps, d.reason());
      }
      Instant at = d.retryAt().orElseThrow();
      steps.add(
          new Step(
              retryCount + 1,
              Duration.between(failed, at),
              Duration.between(failedAt, at),
              at,
              d.reason()));
      failed = at;
    }
    return new PlannedRetries(steps, "(more than " + MAX_STEPS + " retries; not listed)");
  }
}
