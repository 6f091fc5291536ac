package dev.carillon.worker.run;

import dev.carillon.logging.InstanceMdc;
import dev.carillon.model.agent.BuiltInHandler;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.Outcome;
import dev.carillon.trace.Tracing;
import dev.carillon.worker.DaemonThreads;
import dev.carillon.worker.WorkerMetrics;
import dev.carillon.worker.lease.Heartbeater;
import dev.carillon.worker.lease.LeaseFence;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one claimed instance on the calling pool thread, from QUEUED to its end: checks that its
 * lease can still hold, starts its agent's {@link AgentExecution} ({@link #executionFor}: the one
 * place that knows which kind of agent runs it), enforces its deadline, stops it when its lease
 * could not be renewed in time ({@link LeaseFence}: before the lease can expire, so that the retry
 * never overlaps it), and hands whichever end comes first (the agent's outcome or TIMEOUT) to the
 * {@link EndRecorder}. The TIMEOUT of an execution that {@linkplain AgentExecution#endsWhenStopped
 * ends when stopped} (a process tree, a request) is written once it has ended, so that no retry
 * starts while it still runs.
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
  private final LeaseFence fence;
  private final Optional<Duration> heartbeatInterval;
  private final Stopper stopper;
  private final Tracing tracing;
  private final ScheduledExecutorService deadlines;
  private final Set<String> warnedTasks = ConcurrentHashMap.newKeySet();

  /**
   * @param clock the worker's clock, for the agent's {@code startedAt} and {@code deadline}
   * @param builtIns how the runs of each built-in handler this worker offers execute
   * @param records the checkpoints and effects of a run, for its agent's context
   * @param fence when a run whose lease is not renewed is stopped
   * @param heartbeatInterval the fixed renewal interval, or empty for the adaptive one
   * @param stopper stops agents and watches that they end
   */
  Runner(
      Runs runs,
      EndRecorder ends,
      WorkerMetrics metrics,
      String workerId,
      int maxSummaryBytes,
      Clock clock,
      Map<BuiltInHandler, AgentKind> builtIns,
      LeaseFence fence,
      Optional<Duration> heartbeatInterval,
      Stopper stopper,
      Function<Run, ResumeRecords> records,
      Tracing tracing) {
    this.tracing = tracing;
    this.runs = runs;
    this.records = records;
    this.ends = ends;
    this.metrics = metrics;
    this.workerId = workerId;
    this.maxSummaryBytes = maxSummaryBytes;
    this.clock = clock;
    this.builtIns = Map.copyOf(builtIns);
    this.fence = fence;
    this.heartbeatInterval = heartbeatInterval;
    this.stopper = stopper;
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("carillon-deadlines-" + workerId));
    // A run's timer is cancelled when the run ends, almost always long before it is due; without
    // this, every cancelled timer would stay queued until its deadline (500 runs a second with a
    // ten-minute timeout is 300,000 dead timers).
    timers.setRemoveOnCancelPolicy(true);
    this.deadlines = timers;
  }

  /**
   * Runs {@code run} on the calling thread, which holds a thread slot. Every line logged meanwhile,
   * the agent's included, carries the instance in its MDC, with the trace id.
   */
  void run(Run run) {
    Context parent = run.trace != null ? run.trace : tracing.instanceParent(run.instance.id());
    String traceId = Span.fromContext(parent).getSpanContext().getTraceId();
    try (InstanceMdc mdc =
        InstanceMdc.instance(
                run.instance.taskId(),
                run.instance.windowKey(),
                run.instance.id(),
                run.instance.attempt())
            .traceId(traceId)) {
      runInScope(run, parent);
    }
  }

  private void runInScope(Run run, Context parent) {
    // The execution first: how long its agent may take to stop moves the point past which it must
    // not start. It does nothing until it is executed.
    Instant startedAt = clock.instant();
    ResumeRecords resume = records.apply(run);
    Span span =
        tracing
            .tracer()
            .spanBuilder("run")
            .setParent(parent)
            .setAttribute(Tracing.INSTANCE, run.instance.id())
            .setAttribute(Tracing.TASK, run.instance.taskId())
            .setAttribute(Tracing.WINDOW, run.instance.windowKey())
            .setAttribute(Tracing.ATTEMPT, (long) run.instance.attempt())
            .setAttribute("carillon.handler", run.spec.handler())
            .startSpan();
    WorkerAgentContext context =
        new WorkerAgentContext(
            run.instance,
            run.spec.paramsJson(),
            startedAt,
            startedAt.plus(run.timeout),
            run.progress,
            clock,
            resume,
            Tracing.traceparent(span.getSpanContext()).orElse(null));
    run.prepare(executionFor(run, context, resume), startedAt);
    long sinceRenewal = System.nanoTime() - run.renewedNanos;
    Duration fenceAfter = fence.fenceAfter(run.timeout, run.execution().stopAllowance());
    if (sinceRenewal >= fenceAfter.toNanos() && run.move(RunState.QUEUED, RunState.LEASE_LOST)) {
      // The lease may run out before the agent could be stopped again: the process was paused (a
      // stopped container, a long GC) or the heartbeat could not reach the database. Another
      // worker may then run the retry, so starting the plugin now could execute the window twice.
      // Its end would be fenced out anyway; what this prevents is the run's side effects.
      metrics.leasesLost.increment();
      log.warn(
          "{} was not started: its lease was last renewed {} ago, and a run is stopped {} after its"
              + " last renewal (lease {} minus margin) so that it ends before the lease can expire;"
              + " another worker may run it",
          run,
          Duration.ofNanos(sinceRenewal),
          fenceAfter,
          run.timeout);
      span.setStatus(StatusCode.ERROR, "not started: its lease could not be renewed in time");
      span.end();
      if (run.threadEnded()) {
        runs.retire(run);
      }
      return;
    }
    run.span(span);
    if (!run.move(RunState.QUEUED, RunState.RUNNING)) {
      // Released or lost while it waited; whoever moved it also took it out of the pool.
      span.setStatus(StatusCode.ERROR, "released or lease lost before it started");
      span.end();
      return;
    }
    try (Scope scope = span.makeCurrent()) {
      run.deadlineTimer(
          deadlines.schedule(
              () -> deadlineReached(run), run.timeout.toNanos(), TimeUnit.NANOSECONDS));
      scheduleFence(run);
      warnIfUnrenewable(run);
      log.info("Starting {} with handler '{}', timeout {}", run, run.spec.handler(), run.timeout);
      Outcome outcome = run.execution().execute();
      if (outcome.status() != InstanceStatus.SUCCESS) {
        span.setStatus(StatusCode.ERROR, outcome.status() + ": " + outcome.reason());
      }
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
      if (run.state() == RunState.TIMED_OUT) {
        span.setStatus(StatusCode.ERROR, "timed out after " + run.timeout);
      }
      span.end();
      run.cancelTimers();
      boolean retire = run.threadEnded();
      stopper.threadEnded(run);
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

  /** Checks the run's lease when it would be fenced if no renewal came since. */
  private void scheduleFence(Run run) {
    long due = run.renewedNanos + fenceAfter(run).toNanos();
    long delay = Math.max(0, due - System.nanoTime());
    try {
      run.fenceTimer(deadlines.schedule(() -> fenceCheck(run), delay, TimeUnit.NANOSECONDS));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Closed: the worker is stopping and releases or abandons its runs.
    }
  }

  /**
   * Stops a RUNNING run whose lease was not renewed for {@link LeaseFence#fenceAfter}: the database
   * still holds the lease for at least the margin, so the agent ends before another attempt can be
   * claimed. A renewal that came meanwhile moves the check to its new due time.
   */
  private void fenceCheck(Run run) {
    if (run.state() != RunState.RUNNING) {
      return;
    }
    long since = System.nanoTime() - run.renewedNanos;
    if (since < fenceAfter(run).toNanos()) {
      scheduleFence(run);
      return;
    }
    if (!run.move(RunState.RUNNING, RunState.LEASE_LOST)) {
      return;
    }
    metrics.fenced.increment();
    log.warn(
        "{} stopped: its lease could not be renewed for {} (lease {}, margin {}); the database"
            + " holds it at most that margin longer, and the run must end before another worker"
            + " can take it. Its result will not be written",
        run,
        Duration.ofNanos(since),
        run.timeout,
        fence.marginFor(run.timeout));
    stopper.stop(run);
    runs.signal();
  }

  /** When run's lease, unrenewed, makes the worker stop it (see {@link LeaseFence}). */
  private Duration fenceAfter(Run run) {
    return fence.fenceAfter(run.timeout, run.execution().stopAllowance());
  }

  private void warnIfUnrenewable(Run run) {
    Duration allowance = run.execution().stopAllowance();
    if (!fence.fencesInTime(run.timeout, allowance) && warnedTasks.add(run.instance.taskId())) {
      log.warn(
          "Task '{}': its agent may take {} to stop (its grace and the wait after SIGKILL), too"
              + " long for its lease ({}) minus the margin: a worker that cannot renew the lease"
              + " stops it at {} after the last renewal, and the retry may start before it has"
              + " ended. Shorten the agent's grace or lengthen the task's timeout",
          run.instance.taskId(),
          allowance,
          run.timeout,
          fenceAfter(run));
      return;
    }
    Duration interval = Heartbeater.intervalFor(heartbeatInterval, run.timeout);
    if (interval.plus(Heartbeater.TICK).compareTo(fenceAfter(run)) >= 0
        && warnedTasks.add(run.instance.taskId())) {
      log.warn(
          "Task '{}': its lease ({}) is renewed every {}, which is not before the worker must stop"
              + " an unrenewed run ({} after the last renewal); its runs may be stopped while"
              + " healthy. Shorten worker.heartbeat-interval or worker.fence-margin, or lengthen"
              + " the task's timeout",
          run.instance.taskId(),
          run.timeout,
          interval,
          fenceAfter(run));
    }
  }

  private void deadlineReached(Run run) {
    if (!run.move(RunState.RUNNING, RunState.TIMED_OUT)) {
      return;
    }
    stopper.stop(run);
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
