package dev.carillon.model.instance;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The life of one task instance. The transition table below is the only place that says which
 * changes are legal; every store method that changes a status goes through {@link
 * #checkTransition}.
 *
 * <pre>
 * PENDING ──claim──▶ RUNNING ──▶ SUCCESS
 *    ▲                 │  ├────▶ FAILED ──┐
 *    │                 │  └────▶ TIMEOUT ─┤
 *    │                 │                  ▼
 *    └──── RETRY_WAIT ◀┴──────── retry allowed? ── no ──▶ DEAD
 * RUNNING ──released on graceful shutdown──▶ PENDING
 * </pre>
 */
public enum InstanceStatus {
  /** Created for its window and waiting for a worker to claim it. */
  PENDING,
  /** Claimed by a worker holding a lease; {@code attempt} identifies the claim. */
  RUNNING,
  /** The agent returned a result. Terminal. */
  SUCCESS,
  /** The agent threw; the retry service decides between RETRY_WAIT and DEAD. */
  FAILED,
  /** The lease or the deadline expired; the retry service decides between RETRY_WAIT and DEAD. */
  TIMEOUT,
  /** Waiting for {@code next_attempt_at}; then back to PENDING. */
  RETRY_WAIT,
  /**
   * No retry is allowed any more: the manual-intervention queue. Terminal until an operator
   * re-runs.
   */
  DEAD,
  /** Recorded but never run (overlap rule, catch-up limit, dead upstream). Terminal. */
  SKIPPED,
  /** Stopped by an operator. Terminal until an operator re-runs. */
  CANCELLED;

  private static final Map<InstanceStatus, Set<InstanceStatus>> ALLOWED =
      Map.of(
          // SKIPPED is never reached, only created (NewInstance.skipped): it never runs.
          PENDING, EnumSet.of(RUNNING, CANCELLED),
          RUNNING, EnumSet.of(SUCCESS, FAILED, TIMEOUT, PENDING, CANCELLED),
          FAILED, EnumSet.of(RETRY_WAIT, DEAD, CANCELLED),
          TIMEOUT, EnumSet.of(RETRY_WAIT, DEAD, CANCELLED),
          RETRY_WAIT, EnumSet.of(PENDING, CANCELLED),
          // Operator re-runs (schedctl rerun) bring a finished window back to PENDING.
          SUCCESS, EnumSet.of(PENDING),
          DEAD, EnumSet.of(PENDING),
          SKIPPED, EnumSet.of(PENDING),
          CANCELLED, EnumSet.of(PENDING));

  /** The states a new instance row may start in. */
  public static final Set<InstanceStatus> INITIAL = EnumSet.of(PENDING, SKIPPED);

  /**
   * States in which an instance still occupies its task: under the SKIP overlap policy a new window
   * is skipped while an earlier one is in one of these.
   */
  public static final Set<InstanceStatus> LIVE =
      EnumSet.of(PENDING, RUNNING, RETRY_WAIT, FAILED, TIMEOUT);

  /** States that end an instance's automatic life. */
  public static final Set<InstanceStatus> FINISHED = EnumSet.of(SUCCESS, DEAD, SKIPPED, CANCELLED);

  public boolean canTransitionTo(InstanceStatus next) {
    return ALLOWED.get(this).contains(next);
  }

  /** The states this one may change to, in declaration order. */
  public Set<InstanceStatus> successors() {
    return EnumSet.copyOf(ALLOWED.get(this));
  }

  public boolean isLive() {
    return LIVE.contains(this);
  }

  public boolean isFinished() {
    return FINISHED.contains(this);
  }

  /**
   * @throws IllegalTransitionException naming both states when the table forbids the change
   */
  public void checkTransition(InstanceStatus next) {
    if (!canTransitionTo(next)) {
      throw new IllegalTransitionException(this, next);
    }
  }
}
