package dev.carillon.worker.lease;

import dev.carillon.model.instance.Progress;
import dev.carillon.store.Lease;
import java.time.Duration;

/**
 * A lease that must be kept, as the heartbeat sees it.
 *
 * @param lease the claim to renew
 * @param timeout the lease length
 * @param renewedNanos {@link System#nanoTime()} when the lease was last known to be renewed (before
 *     its claim was sent, or its last renewal): it holds until at least this plus the timeout
 * @param progress the run's progress report to write with the renewal, when it changed since it was
 *     last written; {@code null} leaves the stored one as it is
 */
public record LiveLease(Lease lease, Duration timeout, long renewedNanos, Progress progress) {
  /** A lease whose progress did not change. */
  public LiveLease(Lease lease, Duration timeout, long renewedNanos) {
    this(lease, timeout, renewedNanos, null);
  }
}
