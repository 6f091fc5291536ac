package dev.carillon.worker.lease;

import dev.carillon.store.Lease;
import java.time.Duration;

/**
 * A lease that must be kept, as the heartbeat sees it.
 *
 * @param lease the claim to renew
 * @param timeout the lease length
 * @param renewedNanos {@link System#nanoTime()} when the lease was last known to be renewed (before
 *     its claim was sent, or its last renewal): it holds until at least this plus the timeout
 */
public record LiveLease(Lease lease, Duration timeout, long renewedNanos) {}
