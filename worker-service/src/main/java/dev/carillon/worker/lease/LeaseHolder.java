package dev.carillon.worker.lease;

import dev.carillon.model.instance.Progress;
import dev.carillon.store.Lease;
import java.util.List;

/**
 * Whoever holds the leases the {@link Heartbeater} keeps alive (the run pool): it says which leases
 * are live, and hears which were renewed and which were lost. Implementations are thread-safe; the
 * heartbeat thread calls them.
 */
public interface LeaseHolder {
  /**
   * The leases to renew now: instances waiting for a thread, runs in progress, and runs whose end
   * is being written.
   */
  List<LiveLease> liveLeases();

  /**
   * A heartbeat renewed {@code lease} with a statement sent at {@code sentNanos} ({@link
   * System#nanoTime()}), so the lease holds at least until then plus its timeout.
   */
  void leaseRenewed(Lease lease, long sentNanos);

  /**
   * A heartbeat that renewed {@code lease} also wrote {@code progress}, the report its {@link
   * LiveLease} carried. Does nothing by default.
   */
  default void progressWritten(Lease lease, Progress progress) {}

  /**
   * A heartbeat did not renew {@code lease}: its run must stop (or, still waiting, never start) and
   * nothing it produces may be recorded. Does nothing when the run already ended or was stopped for
   * another reason.
   *
   * @param reason why, for the log
   */
  void leaseLost(Lease lease, String reason);
}
