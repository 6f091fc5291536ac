package dev.carillon.worker.run;

import dev.carillon.worker.DaemonThreads;
import dev.carillon.worker.WorkerMetrics;
import dev.carillon.worker.lease.LeaseFence;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops running agents and watches that they end. Every stop of a run that had started (its
 * deadline passed, its lease was lost or could not be renewed, the worker shuts down) goes through
 * {@link #stop}; a run whose thread is still busy with it {@link LeaseFence#graceFor its grace}
 * later is <em>abandoned</em>: logged once, counted ({@code carillon.worker.runs.abandoned}), and
 * it keeps its slot until its thread really ends ({@link #threadEnded}), so such runs cannot pile
 * up threads. When {@link GiveUp#maxAbandoned} runs are abandoned at once, the worker can no longer
 * trust its slots or its stops, and {@link GiveUp#onGiveUp} is told, once. While {@link
 * GiveUp#outage} names an outage (the worker's database does not answer), a run still busy after
 * its grace is not abandoned yet but looked at again a grace later (see {@link GiveUp}).
 *
 * <p>Thread-safe; the checks run on the stopper's own timer thread.
 */
final class Stopper implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Stopper.class);

  private final WorkerMetrics metrics;
  private final LeaseFence fence;
  private final GiveUp rule;
  private final ScheduledExecutorService timer;
  private final AtomicInteger abandoned = new AtomicInteger();
  private final AtomicBoolean gaveUp = new AtomicBoolean();

  /**
   * @param fence gives each run's grace
   * @param rule when abandoned runs make the worker give up
   */
  Stopper(WorkerMetrics metrics, LeaseFence fence, GiveUp rule, String workerId) {
    this.metrics = metrics;
    this.fence = fence;
    this.rule = rule;
    ScheduledThreadPoolExecutor t =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("carillon-stops-" + workerId));
    t.setRemoveOnCancelPolicy(true);
    this.timer = t;
  }

  /**
   * Asks {@code run}'s agent to stop (see {@link AgentExecution#stop}) and, the first time, checks
   * after its grace that it ended. Returns at once.
   */
  void stop(Run run) {
    run.stop();
    if (run.stopAsked()) {
      AgentExecution execution = run.execution();
      Duration grace =
          fence
              .graceFor(run.timeout)
              .plus(execution == null ? Duration.ZERO : execution.stopAllowance());
      checkLater(run, grace, false);
    }
  }

  private void checkLater(Run run, Duration grace, boolean deferredBefore) {
    try {
      timer.schedule(
          () -> check(run, grace, deferredBefore), grace.toNanos(), TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Closed: the worker is stopping; its exit ends whatever still runs.
    }
  }

  private void check(Run run, Duration grace, boolean deferredBefore) {
    if (!run.threadBusy()) {
      return;
    }
    Optional<String> outage = rule.outage().get();
    if (outage.isPresent()) {
      if (!deferredBefore) {
        metrics.abandonDeferred.increment();
        log.warn(
            "{} was asked to stop {} ago ({}) and has not ended, but {}: its thread is likely"
                + " blocked on that, not ignoring the stop, so it is not counted as abandoned"
                + " while the outage lasts (looked at again every {})",
            run,
            grace,
            run.state(),
            outage.get(),
            grace);
      }
      checkLater(run, grace, true);
      return;
    }
    if (!run.abandonIfBusy()) {
      return;
    }
    int now = abandoned.incrementAndGet();
    metrics.abandoned.increment();
    log.warn(
        "{} was asked to stop {} ago ({}) and has not ended: abandoned; it keeps its slot until its"
            + " thread ends ({} of {} abandoned runs before this worker gives up)",
        run,
        deferredBefore ? "more than " + grace : grace,
        run.state(),
        now,
        rule.maxAbandoned());
    if (now >= rule.maxAbandoned() && gaveUp.compareAndSet(false, true)) {
      rule.onGiveUp()
          .accept(
              now
                  + " run(s) were asked to stop and did not end within their grace (at most "
                  + fence.stopGrace()
                  + "); worker.max-abandoned-runs is "
                  + rule.maxAbandoned());
    }
  }

  /** {@code run}'s thread is done with it; an abandoned run gives its count back. */
  void threadEnded(Run run) {
    if (run.abandoned()) {
      abandoned.decrementAndGet();
      log.info("Abandoned {} ended after all; its slot is free again", run);
    }
  }

  /** Runs abandoned now (stopped, grace passed, thread still busy). */
  int abandoned() {
    return abandoned.get();
  }

  /** Whether {@code onGiveUp} was told. */
  boolean gaveUp() {
    return gaveUp.get();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
