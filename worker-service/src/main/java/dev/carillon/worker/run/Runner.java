package dev.carillon.worker.run;

import dev.carillon.model.agent.BuiltInHandler;
import dev.carillon.store.Outcome;
import dev.carillon.worker.DaemonThreads;
import dev.carillon.worker.WorkerMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one claimed instance on the calling pool thread, from QUEUED to its end: checks that its
 * lease can still hold, starts its agent's {@link AgentExecution} ({@link #executionFor}: the one
 * place that knows which kind of agent runs it), enforces its deadline, and hands whichever end
 * comes first (the agent's outcome or TIMEOUT) to the {@link EndRecorder}. The TIMEOUT of an
 * execution that {@linkplain AgentExecution#endsWhenStopped ends when stopped} (a process tree, a
 * request) is written once it has ended, so that no retry starts while it still runs.
 *
 * <p>Thread-safe: every pool thread calls {@link #run}; the deadline timer has its own thread.
 */
final class Runner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Runner.class);

  private final Runs runs;
  private final EndRecorder ends;
  private final WorkerMetrics metrics;
  private final String workerId;
  private final int maxSummaryBytes;
  private final Clock clock;
  private final Map<BuiltInHandler, AgentKind> builtIns;
  private final Function<Run, ResumeRecords> records;
  private final ScheduledExecutorService deadlines;

  /**
   * @param clock the worker's clock, for the agent's {@code startedAt} and {@code deadline}
   * @param builtIns how the runs of each built-in handler this worker offers execute
   * @param records the checkpoints and effects of a run, for its agent's context
   */
  Runner(
      Runs runs,
      EndRecorder ends,
      WorkerMetrics metrics,
      String workerId,
      int maxSummaryBytes,
      Clock clock,
      Map<BuiltInHandler, AgentKind> builtIns,
      Function<Run, ResumeRecords> records) {
    this.runs = runs;
    this.records = records;
    this.ends = ends;
    this.metrics = metrics;
    this.workerId = workerId;
    this.maxSummaryBytes = maxSummaryBytes;
    this.clock = clock;
    this.builtIns = Map.copyOf(builtIns);
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("carillon-deadlines-" + workerId));
    // A run's timer is cancelled when the run ends, almost always long before it is due; without
    // this, every cancelled timer would stay queued until its deadline (500 runs a second with a
    // ten-minute timeout is 300,000 dead timers).
    timers.setRemoveOnCancelPolicy(true);
    this.deadlines = timers;
  }

  /** Runs {@code run} on the calling thread, which holds a thread slot. */
  void run(Run run) {
    long sinceRenewal = System.nanoTime() - run.renewedNanos;
    if (sinceRenewal >= run.timeout.toNanos() && run.move(RunState.QUEUED, RunState.LEASE_LOST)) {
      // The lease may have run out while the run waited: the process was paused (a stopped
      // container, a long GC) or the heartbeat could not reach the database. Another worker may
      // already run the retry, so starting the plugin now would execute the window twice. Its end
      // would be fenced out anyway; what this prevents is the run's side effects.
      metrics.leasesLost.increment();
      log.warn(
          "{} was not started: its lease was last renewed {} ago, not less than its timeout {}"
              + " (the worker was paused or could not renew it), so another worker may run it",
          run,
          Duration.ofNanos(sinceRenewal),
          run.timeout);
      if (run.threadEnded()) {
        runs.retire(run);
      }
      return;
    }
    Instant startedAt = clock.instant();
    ResumeRecords resume = records.apply(run);
    WorkerAgentContext context =
        new WorkerAgentContext(
            run.instance,
            run.spec.paramsJson(),
            startedAt,
            startedAt.plus(run.timeout),
            run.progress,
            clock,
            resume);
    run.prepare(executionFor(run, context, resume), startedAt);
    if (!run.move(RunState.QUEUED, RunState.RUNNING)) {
      // Released or lost while it waited; whoever moved it also took it out of the pool.
      return;
    }
    try {
      run.deadlineTimer(
          deadlines.schedule(
              () -> deadlineReached(run), run.timeout.toNanos(), TimeUnit.NANOSECONDS));
      log.info("Starting {} with handler '{}', timeout {}", run, run.spec.handler(), run.timeout);
      Outcome outcome = run.execution().execute();
      if (run.state() == RunState.TIMED_OUT && run.execution().endsWhenStopped()) {
        // The deadline stopped it and left the TIMEOUT to be written now that it is gone.
        ends.record(
            run, Outcome.timeout(timeoutReason(run) + "; recorded once the agent had stopped"));
      } else {
        finish(run, outcome);
      }
    } catch (Throwable t) {
      log.error("Could not record the end of {}: {}", run, t.toString());
    } finally {
      run.cancelDeadline();
      boolean retire = run.threadEnded();
      // A stop that raced with the end of the agent, or an agent that restored the flag, may have
      // left it set; it was meant for this run, not for the next one this thread takes.
      Thread.interrupted();
      if (retire) {
        runs.retire(run);
      }
      runs.signal();
    }
  }

  /**
   * The execution of {@code run}'s agent: the kind of a built-in handler ({@code exec}, {@code
   * http}) when its handler names one, otherwise its Java plugin in this process.
   */
  private AgentExecution executionFor(Run run, WorkerAgentContext context, RunRecords resume) {
    Optional<AgentKind> kind = BuiltInHandler.of(run.spec.handler()).map(builtIns::get);
    if (kind.isPresent()) {
      return kind.get().execution(run.spec, context, resume);
    }
    return new PluginExecution(run.task, context, maxSummaryBytes);
  }

  private void finish(Run run, Outcome outcome) {
    if (!run.move(RunState.RUNNING, RunState.COMPLETING)) {
      metrics.discarded.increment();
      log.info(
          "{} ended after it was stopped ({}); its outcome {} is discarded",
          run,
          run.state(),
          outcome.status());
      return;
    }
    runs.signal();
    ends.record(run, outcome);
  }

  private void deadlineReached(Run run) {
    if (!run.move(RunState.RUNNING, RunState.TIMED_OUT)) {
      return;
    }
    run.stop();
    runs.signal();
    if (!run.execution().endsWhenStopped()) {
      ends.record(run, Outcome.timeout(timeoutReason(run)));
    }
  }

  private String timeoutReason(Run run) {
    Instant startedAt = run.startedAt();
    return "exceeded its timeout of "
        + run.timeout
        + " (started "
        + startedAt
        + ", deadline "
        + startedAt.plus(run.timeout)
        + "); interrupted by worker "
        + workerId;
  }

  /** Stops the deadline timer: runs still going are no longer timed out. */
  @Override
  public void close() {
    deadlines.shutdownNow();
  }
}
