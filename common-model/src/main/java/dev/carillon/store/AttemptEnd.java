package dev.carillon.store;

import java.util.Objects;

/**
 * The end of one attempt, as {@link LeaseStore#completeAll} writes it: the claim that fences the
 * write and how the attempt ended.
 *
 * @param lease the instance and the attempt that must still be current
 * @param outcome SUCCESS, FAILED or TIMEOUT, with its summary or reason
 */
public record AttemptEnd(Lease lease, Outcome outcome) {
  public AttemptEnd {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(outcome, "outcome");
  }
}
