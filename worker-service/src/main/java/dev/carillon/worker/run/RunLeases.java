package dev.carillon.worker.run;

import dev.carillon.model.instance.Progress;
import dev.carillon.store.Lease;
import dev.carillon.worker.WorkerMetrics;
import dev.carillon.worker.lease.LeaseHolder;
import dev.carillon.worker.lease.LiveLease;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool's side of the heartbeat: the leases of the runs that {@link RunState#holdsLease hold
 * one}, when each was last renewed, and what a lost lease does to its run (a waiting run never
 * starts; a running one is stopped, and nothing it produces is written). Thread-safe.
 */
final class RunLeases implements LeaseHolder {
  private static final Logger log = LoggerFactory.getLogger(RunLeases.class);

  private final Runs runs;
  private final StartQueue queue;
  private final WorkerMetrics metrics;
  private final Stopper stopper;

  RunLeases(Runs runs, StartQueue queue, WorkerMetrics metrics, Stopper stopper) {
    this.runs = runs;
    this.queue = queue;
    this.metrics = metrics;
    this.stopper = stopper;
  }

  @Override
  public List<LiveLease> liveLeases() {
    List<LiveLease> out = new ArrayList<>();
    for (Run r : runs.all()) {
      if (r.state().holdsLease()) {
        out.add(new LiveLease(r.lease, r.timeout, r.renewedNanos, r.progress.unsent()));
      }
    }
    return out;
  }

  @Override
  public void leaseRenewed(Lease lease, long sentNanos) {
    Run run = runs.get(lease.instanceId());
    if (run != null && run.lease.equals(lease) && sentNanos > run.renewedNanos) {
      run.renewedNanos = sentNanos;
    }
  }

  @Override
  public void progressWritten(Lease lease, Progress progress) {
    Run run = runs.get(lease.instanceId());
    if (run != null && run.lease.equals(lease)) {
      run.progress.written(progress);
    }
  }

  @Override
  public void leaseLost(Lease lease, String reason) {
    Run run = runs.get(lease.instanceId());
    if (run == null || !run.lease.equals(lease)) {
      return;
    }
    if (run.move(RunState.QUEUED, RunState.LEASE_LOST)) {
      metrics.leasesLost.increment();
      log.warn(
          "{} lost its lease while waiting for a thread ({}); it will not run here", run, reason);
      queue.withdraw(run);
    } else if (run.move(RunState.RUNNING, RunState.LEASE_LOST)) {
      metrics.leasesLost.increment();
      log.warn(
          "{} lost its lease ({}); cancelling the run, its result will not be written",
          run,
          reason);
      stopper.stop(run);
    }
    runs.signal();
  }
}
