package dev.carillon.worker.run;

import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.AttemptEnd;
import dev.carillon.store.Outcome;
import dev.carillon.worker.WorkerMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records how runs ended: hands each end to the {@link CompletionWriter}, then logs and counts what
 * was written, and retires the run once its thread is done with it too.
 *
 * <p>The result of finished work must not be dropped because PostgreSQL restarted at that moment
 * (the instance would stay RUNNING, time out and run a second time), so the writer tries again
 * while the database cannot be reached, bounded by the lease length: past it the retry service has
 * moved the instance on, and the fenced write would change nothing anyway. Meanwhile the heartbeat
 * keeps the lease (see {@link RunState#holdsLease}).
 *
 * <p>Thread-safe.
 */
final class EndRecorder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EndRecorder.class);

  private final CompletionWriter writer;
  private final Runs runs;
  private final WorkerMetrics metrics;

  EndRecorder(CompletionWriter writer, Runs runs, WorkerMetrics metrics) {
    this.writer = writer;
    this.runs = runs;
    this.metrics = metrics;
  }

  /** Hands the end of {@code run}'s attempt to the writer; returns at once. */
  void record(Run run, Outcome outcome) {
    writer
        .submit(new AttemptEnd(run.lease, outcome, run.progress.unsent()), run.timeout)
        .whenComplete(
            (written, error) -> {
              try {
                if (error != null) {
                  log.error("Could not record the end of {}: {}", run, error.toString());
                } else {
                  recorded(run, outcome, written);
                }
              } finally {
                if (run.endWritten()) {
                  runs.retire(run);
                }
                runs.signal();
              }
            });
  }

  private void recorded(Run run, Outcome outcome, boolean written) {
    if (!written) {
      metrics.discarded.increment();
      log.warn(
          "{} ended with {} but the instance no longer carries this attempt or is no longer"
              + " RUNNING; nothing was written",
          run,
          outcome.status());
    } else if (outcome.status() == InstanceStatus.SUCCESS) {
      metrics.succeeded.increment();
      log.info("{} succeeded{}", run, outcome.truncated() ? " (summary truncated)" : "");
    } else if (outcome.status() == InstanceStatus.TIMEOUT) {
      metrics.timedOut.increment();
      log.warn("{} {}", run, outcome.reason());
    } else {
      metrics.failed.increment();
      log.info(
          "{} failed{}: {}",
          run,
          outcome.nonRetryable() ? " (non-retryable)" : "",
          outcome.reason());
    }
  }

  /** Stops the writer: ends not yet written are given up. */
  @Override
  public void close() {
    writer.close();
  }
}
