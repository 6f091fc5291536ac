package dev.carillon.store;

import dev.carillon.model.instance.Progress;
import java.util.Objects;

/**
 * The end of one attempt, as {@link LeaseStore#completeAll} writes it: the claim that fences the
 * write and how the attempt ended.
 *
 * @param lease the instance and the attempt that must still be current
 * @param outcome SUCCESS, FAILED or TIMEOUT, with its summary or reason
 * @param progress the run's latest progress report when it is newer than what the heartbeat wrote,
 *     written with the end; {@code null} leaves the instance's progress as it is
 */
public record AttemptEnd(Lease lease, Outcome outcome, Progress progress) {
  public AttemptEnd {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(outcome, "outcome");
  }

  /** An end that leaves the instance's progress as it is. */
  public AttemptEnd(Lease lease, Outcome outcome) {
    this(lease, outcome, null);
  }
}
