package dev.carillon.worker.run;

/**
 * Where a run stands in this worker. Every change goes through {@link Run#move}, a compare-and-set
 * checked against {@link #canMoveTo}:
 *
 * <pre>
 *   QUEUED ──▶ RUNNING ──▶ COMPLETING | TIMED_OUT | LEASE_LOST | RELEASED
 *      └──────────────────▶ LEASE_LOST | RELEASED
 * </pre>
 *
 * A run starts QUEUED, or COMPLETING when it cannot run here at all (no valid definition, no
 * plugin); its failure is then written at once. Whichever of the agent, the deadline, the heartbeat
 * or the shutdown moves a RUNNING run first decides its end; whatever the agent does after losing
 * that race is discarded.
 */
enum RunState {
  /** Claimed, waiting for a thread; its lease is renewed while it waits. */
  QUEUED,
  /** Its agent is executing on a pool thread. */
  RUNNING,
  /** The agent returned or threw first; its outcome is being written, fenced by attempt. */
  COMPLETING,
  /** The deadline came first; the agent was stopped and TIMEOUT is being written. */
  TIMED_OUT,
  /**
   * The lease is gone (a heartbeat renewed nothing, or it ran out while queued); nothing is
   * written.
   */
  LEASE_LOST,
  /** Shutdown gave the instance back ({@code RUNNING → PENDING}, no retry consumed). */
  RELEASED;

  /** Whether the transition table allows {@code this → to}. */
  boolean canMoveTo(RunState to) {
    return switch (this) {
      case QUEUED -> to == RUNNING || to == LEASE_LOST || to == RELEASED;
      case RUNNING -> to == COMPLETING || to == TIMED_OUT || to == LEASE_LOST || to == RELEASED;
      case COMPLETING, TIMED_OUT, LEASE_LOST, RELEASED -> false;
    };
  }

  /**
   * Whether the heartbeat must keep this run's lease: while it waits, runs, and while its end is
   * being written (with the database unreachable that can take a while).
   */
  boolean holdsLease() {
    return this == QUEUED || this == RUNNING || this == COMPLETING || this == TIMED_OUT;
  }

  /**
   * Whether a drain waits for this run: waiting, running or writing the agent's own outcome. Runs
   * stopped for another reason may still be ending, but nothing they do is recorded.
   */
  boolean isActive() {
    return this == QUEUED || this == RUNNING || this == COMPLETING;
  }

  /** Whether entering this state makes the run write an end (which then must finish first). */
  boolean writesEnd() {
    return this == COMPLETING || this == TIMED_OUT;
  }
}
