package dev.carillon.worker.lease;

import java.time.Duration;

/**
 * When a worker that cannot renew a lease stops the run it covers, so that the run has ended before
 * the lease can expire by the database's clock, and the retry service cannot start the next attempt
 * while this one still runs. Pure arithmetic; the {@code Runner} applies it.
 *
 * <p>Let {@code L} be the lease length (the task's timeout: every claim and renewal sets {@code
 * lease_until = db now + L}), {@code t} the worker's monotonic time just before it sent the last
 * renewal that succeeded (or the claim), {@code I} the renewal interval, {@code R} the longest a
 * renewal statement takes, {@code M} the margin, {@code G} the stop grace and {@code ρ} the largest
 * rate difference between the worker's monotonic clock and the database's clock ({@link
 * #CLOCK_RATE_ALLOWANCE}). The statement ran after {@code t}, so the database holds the lease at
 * least until {@code t + L} (its time). The worker:
 *
 * <ul>
 *   <li>stops the run at {@code t + L − margin(L)} (its time) when no later renewal succeeded, with
 *       {@code margin(L) = min(M, L/3) + ρL};
 *   <li>counts the run as abandoned when it has not ended {@code grace(L) = min(G, L/3)} later.
 * </ul>
 *
 * <p><b>No overlap</b>: a run that honours the stop ends by {@code t + L − margin(L) + grace(L) ≤ t
 * + L − ρL} worker time, i.e. before {@code t + L} database time, which is the earliest the lease
 * expires and so the earliest another attempt can be claimed. In short, {@code grace + ρL ≤
 * margin}, which the two definitions make true for every {@code L}; the configured part, {@code G <
 * M}, is checked at start ({@code WorkerSettings}). A run that does not honour the stop is
 * abandoned: counted, its slot kept until its thread ends, and past {@code
 * worker.max-abandoned-runs} the process exits, which ends it for certain.
 *
 * <p>An agent that takes time to stop by design (a process tree: SIGTERM, its grace, SIGKILL; its
 * {@code stopAllowance} {@code A}) is stopped {@code A} earlier, at {@code t + L − margin(L) − A},
 * and counts as abandoned only {@code A + grace(L)} after the stop, so the same inequality holds.
 *
 * <p><b>No needless stop</b>: a healthy worker learns of each renewal within {@code I + R + }{@link
 * Heartbeater#TICK} of the previous one, so it must hold that {@code I + R + tick < L − margin(L)};
 * with the adaptive interval ({@code I = L/3}, at most 10 s) that is {@code R + tick < L/3 − ρL}
 * for leases up to 30 s and true with room to spare above. A fixed {@code
 * worker.heartbeat-interval} must stay well below the shortest task timeout minus its margin; a
 * task whose lease cannot meet it is logged once at its first run ({@link #renewable}).
 *
 * @param margin {@code M}: {@code worker.fence-margin}
 * @param stopGrace {@code G}: {@code worker.stop-grace}, shorter than {@code M}
 */
public record LeaseFence(Duration margin, Duration stopGrace) {
  /**
   * {@code ρ}: how much faster one of the two clocks may run than the other, as a fraction (200
   * ppm: two unsynchronized quartz clocks at their usual ±100 ppm tolerance; NTP keeps them far
   * closer). A step of the database's clock is not covered.
   */
  public static final double CLOCK_RATE_ALLOWANCE = 200e-6;

  public LeaseFence {
    if (margin.isNegative() || margin.isZero()) {
      throw new IllegalArgumentException("margin must be positive, was " + margin);
    }
    if (stopGrace.compareTo(margin) >= 0) {
      throw new IllegalArgumentException(
          "stopGrace (" + stopGrace + ") must be shorter than margin (" + margin + ")");
    }
  }

  /** {@code margin(L)}: how long before {@code t + L} an unrenewed run is stopped. */
  public Duration marginFor(Duration lease) {
    return min(margin, lease.dividedBy(3)).plus(drift(lease));
  }

  /** {@code L − margin(L)}: how long after the last known renewal an unrenewed run is stopped. */
  public Duration fenceAfter(Duration lease) {
    return lease.minus(marginFor(lease));
  }

  /**
   * {@code L − margin(L) − A}: when an unrenewed run whose agent may take {@code A} to end after a
   * stop (a process tree's SIGTERM grace and kill wait, {@code AgentExecution.stopAllowance}) is
   * stopped, so that it has still ended before the lease can expire. Never earlier than a third of
   * the lease (a healthy worker renews by then); where that floor applies the guarantee does not
   * hold, which {@link #fencesInTime} tells.
   */
  public Duration fenceAfter(Duration lease, Duration stopAllowance) {
    Duration at = fenceAfter(lease).minus(stopAllowance);
    Duration floor = lease.dividedBy(3);
    return at.compareTo(floor) < 0 ? floor : at;
  }

  /**
   * Whether an agent that may take {@code stopAllowance} to end can be stopped early enough under a
   * lease of {@code lease}: {@code L − margin(L) − A ≥ L/3}.
   */
  public boolean fencesInTime(Duration lease, Duration stopAllowance) {
    return fenceAfter(lease).minus(stopAllowance).compareTo(lease.dividedBy(3)) >= 0;
  }

  /** {@code grace(L)}: how long a stopped run of this lease may take to end. */
  public Duration graceFor(Duration lease) {
    return min(stopGrace, lease.dividedBy(3));
  }

  /**
   * Whether a lease of length {@code lease} renewed every {@code interval} is renewed, in a healthy
   * worker, before it would be fenced: {@code interval + tick < L − margin(L)} (the statement's own
   * time comes on top).
   */
  public boolean renewable(Duration lease, Duration interval, Duration tick) {
    return interval.plus(tick).compareTo(fenceAfter(lease)) < 0;
  }

  private static Duration drift(Duration lease) {
    return Duration.ofNanos((long) Math.ceil(lease.toNanos() * CLOCK_RATE_ALLOWANCE));
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
