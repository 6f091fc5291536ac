package dev.carillon.worker.run;

import dev.carillon.logging.InstanceMdc;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.AttemptEnd;
import dev.carillon.store.Outcome;
import dev.carillon.trace.Tracing;
import dev.carillon.worker.WorkerMetrics;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
 * <p>Each end gets an {@code end} span in its run's trace, from its hand-over to the written row,
 * and each run written its {@code run.duration}; the lines logged about it carry the instance in
 * their MDC (they are written on the writer's thread).
 *
 * <p>Thread-safe.
 */
final class EndRecorder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EndRecorder.class);

  private final CompletionWriter writer;
  private final Runs runs;
  private final WorkerMetrics metrics;
  private final Tracing tracing;

  EndRecorder(CompletionWriter writer, Runs runs, WorkerMetrics metrics) {
    this(writer, runs, metrics, Tracing.off());
  }

  EndRecorder(CompletionWriter writer, Runs runs, WorkerMetrics metrics, Tracing tracing) {
    this.writer = writer;
    this.runs = runs;
    this.metrics = metrics;
    this.tracing = tracing;
  }

  /** Hands the end of {@code run}'s attempt to the writer; returns at once. */
  void record(Run run, Outcome outcome) {
    long submittedAt = Tracing.now();
    writer
        .submit(new AttemptEnd(run.lease, outcome, run.progress.unsent()), run.timeout)
        .whenComplete(
            (written, error) -> {
              try (InstanceMdc mdc =
                  InstanceMdc.instance(
                      run.instance.taskId(),
                      run.instance.windowKey(),
                      run.instance.id(),
                      run.instance.attempt())) {
                traceEnd(run, outcome, submittedAt, written, error);
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

  private void traceEnd(
      Run run, Outcome outcome, long submittedAt, Boolean written, Throwable error) {
    Context parent =
        run.span().getSpanContext().isValid()
            ? Context.root().with(run.span())
            : run.trace != null ? run.trace : tracing.instanceParent(run.instance.id());
    Span span =
        tracing
            .tracer()
            .spanBuilder("end")
            .setParent(parent)
            .setStartTimestamp(submittedAt, TimeUnit.NANOSECONDS)
            .setAttribute(Tracing.INSTANCE, run.instance.id())
            .setAttribute(Tracing.ATTEMPT, (long) run.instance.attempt())
            .setAttribute("carillon.status", outcome.status().name())
            .startSpan();
    if (error != null) {
      span.setStatus(StatusCode.ERROR, error.toString());
    } else if (!Boolean.TRUE.equals(written)) {
      span.setStatus(StatusCode.ERROR, "fenced: the attempt no longer holds the instance");
    }
    span.end();
  }

  private void recorded(Run run, Outcome outcome, boolean written) {
    if (written && run.startedNanos() != 0 && run.spec != null) {
      metrics.runEnded(
          run.instance.taskId(),
          run.spec.handler(),
          WorkerMetrics.DEFAULT_QUEUE,
          outcome.status().name(),
          Duration.ofNanos(System.nanoTime() - run.startedNanos()));
    }
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
