package dev.carillon.worker.run;

import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.store.LeaseStore;
import dev.carillon.worker.WorkerMetrics;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shutdown's side of the pool: gives claimed instances back ({@code RUNNING → PENDING}, no retry
 * consumed, fenced by attempt) so that another worker starts them at once. First the waiting ones,
 * while runs in progress may still finish; at the end of the drain, the runs still going, which are
 * stopped. Waiting for the drain itself is {@link Runs#awaitQuiet} and {@link Runs#awaitEmpty}.
 * Thread-safe.
 */
final class Drain {
  private static final Logger log = LoggerFactory.getLogger(Drain.class);

  private final Runs runs;
  private final StartQueue queue;
  private final LeaseStore store;
  private final WorkerMetrics metrics;
  private final String workerId;
  private final Stopper stopper;

  Drain(
      Runs runs,
      StartQueue queue,
      LeaseStore store,
      WorkerMetrics metrics,
      String workerId,
      Stopper stopper) {
    this.runs = runs;
    this.queue = queue;
    this.store = store;
    this.metrics = metrics;
    this.workerId = workerId;
    this.stopper = stopper;
  }

  /** See {@link RunPool#releaseWaiting}. */
  List<ClaimedInstance> releaseWaiting(String reason) {
    queue.stopStarting();
    return release(reason, false);
  }

  /** See {@link RunPool#releaseAll}. */
  List<ClaimedInstance> releaseAll(String reason) {
    queue.stopStarting();
    return release(reason, true);
  }

  private List<ClaimedInstance> release(String reason, boolean running) {
    List<ClaimedInstance> released = new ArrayList<>();
    for (Run run : runs.all()) {
      boolean waiting = run.move(RunState.QUEUED, RunState.RELEASED);
      if (!waiting && !(running && run.move(RunState.RUNNING, RunState.RELEASED))) {
        continue;
      }
      if (waiting) {
        queue.withdraw(run);
      } else {
        stopper.stop(run);
      }
      try {
        if (store.release(run.lease, workerId, reason)) {
          metrics.released.increment();
          released.add(run.instance);
          log.info("Released {} back to PENDING: {}", run, reason);
        } else {
          log.warn("Could not release {}: its attempt was already over", run);
        }
      } catch (RuntimeException e) {
        log.error("Could not release {}; its lease will expire: {}", run, e.toString());
      }
    }
    runs.signal();
    return released;
  }
}
