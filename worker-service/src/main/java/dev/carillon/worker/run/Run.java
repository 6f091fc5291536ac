package dev.carillon.worker.run;

import dev.carillon.api.AgentTask;
import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.task.RunSpec;
import dev.carillon.store.Lease;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claimed instance, from its claim until it leaves the pool: its {@link RunState}, the agent
 * execution it started (the thing {@link #stop} stops), and when it may leave.
 *
 * <p>A run leaves the pool (and gives back its capacity) once both its thread is done with it and
 * its end, if it writes one, is written; {@link #threadEnded} and {@link #endWritten} each say
 * whether that moment has come, and exactly one call ever says yes. So a plugin that ignores
 * interrupts keeps its capacity, and such plugins cannot pile up unbounded threads.
 *
 * <p>Thread-safe.
 */
final class Run {
  private static final Logger log = LoggerFactory.getLogger(Run.class);

  final ClaimedInstance instance;
  final Lease lease;
  final Duration timeout;

  /** What the task runs with; {@code null} for a run that cannot run here. */
  final RunSpec spec;

  /**
   * The plugin its handler names; {@code null} for a run that cannot run here and for a built-in
   * handler ({@code exec}, {@code http}).
   */
  final AgentTask task;

  /** What the agent last said it is doing, and whether the heartbeat wrote it. */
  final RunProgress progress = new RunProgress();

  /**
   * The trace context its spans continue: the one its message carried, or its instance's derived
   * root; {@code null} for runs made without one (tests), whose spans start at the derived root.
   */
  final Context trace;

  // When the lease was last known to be renewed (the claim, then each heartbeat that renewed it, as
  // System.nanoTime() before the statement was sent): it holds at least until this plus the
  // timeout. The heartbeat's schedule and the start check both read it.
  volatile long renewedNanos;

  private final AtomicReference<RunState> state;
  private volatile AgentExecution execution;
  private volatile Instant startedAt;
  private volatile ScheduledFuture<?> deadlineTimer;
  private volatile ScheduledFuture<?> fenceTimer;
  private volatile Span span = Span.getInvalid();
  private volatile long startedNanos;

  // Guarded by this: whether a thread is done with this run, whether an end write is outstanding,
  // whether the run left the pool, whether a stop was asked for and whether the run was abandoned
  // (stopped, and still not ended after its grace).
  private boolean threadDone;
  private boolean endPending;
  private boolean retired;
  private boolean stopAsked;
  private boolean abandoned;

  private Run(
      ClaimedInstance instance,
      RunSpec spec,
      AgentTask task,
      RunState initial,
      long renewedNanos,
      Context trace) {
    this.instance = instance;
    this.trace = trace;
    this.lease = new Lease(instance.id(), instance.attempt());
    this.timeout = instance.timeout();
    this.spec = spec;
    this.task = task;
    this.state = new AtomicReference<>(initial);
    this.renewedNanos = renewedNanos;
  }

  /**
   * A run waiting for a thread.
   *
   * @param claimedNanos {@link System#nanoTime()} taken before the claim was sent
   */
  static Run queued(ClaimedInstance instance, RunSpec spec, AgentTask task, long claimedNanos) {
    return queued(instance, spec, task, claimedNanos, null);
  }

  /** A run waiting for a thread, whose spans continue {@code trace}. */
  static Run queued(
      ClaimedInstance instance, RunSpec spec, AgentTask task, long claimedNanos, Context trace) {
    return new Run(instance, spec, task, RunState.QUEUED, claimedNanos, trace);
  }

  /**
   * A run that cannot run here (no valid definition, no plugin): COMPLETING from the start, no
   * thread ever takes it, and its failure is written at once.
   */
  static Run unrunnable(ClaimedInstance instance, long nowNanos) {
    return unrunnable(instance, nowNanos, null);
  }

  /** As {@link #unrunnable(ClaimedInstance, long)}, whose spans continue {@code trace}. */
  static Run unrunnable(ClaimedInstance instance, long nowNanos, Context trace) {
    Run run = new Run(instance, null, null, RunState.COMPLETING, nowNanos, trace);
    synchronized (run) {
      run.threadDone = true;
      run.endPending = true;
    }
    return run;
  }

  RunState state() {
    return state.get();
  }

  /**
   * Moves {@code from → to} by compare-and-set; false when the run is no longer in {@code from}
   * (someone else moved it first). When {@code to} writes an end, the write is marked outstanding
   * in the same step, so the run cannot leave the pool between the two.
   *
   * @throws IllegalRunTransitionException when the transition table does not allow {@code from →
   *     to}
   */
  synchronized boolean move(RunState from, RunState to) {
    if (!from.canMoveTo(to)) {
      throw new IllegalRunTransitionException(from, to, this);
    }
    if (!state.compareAndSet(from, to)) {
      return false;
    }
    if (to.writesEnd()) {
      endPending = true;
    }
    // The reasons are logged where they are known (lost lease, timeout, release); this line only
    // traces the machine.
    log.debug("{}: {} -> {}", this, from, to);
    return true;
  }

  /**
   * Prepares the start on a pool thread: the agent's execution and when it started. Called before
   * {@link #move move(QUEUED, RUNNING)}, so that whoever moves the run on from RUNNING finds the
   * execution to {@link #stop}.
   */
  void prepare(AgentExecution execution, Instant startedAt) {
    this.execution = execution;
    this.startedAt = startedAt;
    this.startedNanos = System.nanoTime();
  }

  /** The run's span once it started (else the invalid span). */
  Span span() {
    return span;
  }

  void span(Span span) {
    this.span = span;
  }

  /** {@link System#nanoTime()} when the agent started, or 0 before {@link #prepare}. */
  long startedNanos() {
    return startedNanos;
  }

  /** The agent's execution, or {@code null} before {@link #prepare}. */
  AgentExecution execution() {
    return execution;
  }

  /** When the agent started, or {@code null} before {@link #prepare}. */
  Instant startedAt() {
    return startedAt;
  }

  /** The deadline timer of a RUNNING run; cancelled when its thread is done with it. */
  void deadlineTimer(ScheduledFuture<?> timer) {
    this.deadlineTimer = timer;
  }

  /** The timer that stops a RUNNING run whose lease could not be renewed (see {@code Runner}). */
  void fenceTimer(ScheduledFuture<?> timer) {
    this.fenceTimer = timer;
  }

  /** Cancels the deadline and fence timers, if they were set. */
  void cancelTimers() {
    ScheduledFuture<?> timer = deadlineTimer;
    if (timer != null) {
      timer.cancel(false);
    }
    ScheduledFuture<?> fence = fenceTimer;
    if (fence != null) {
      fence.cancel(false);
    }
  }

  /**
   * Stops the agent (deadline, lost lease, shutdown): the execution decides how. Does nothing when
   * no execution was prepared; returns at once.
   */
  void stop() {
    AgentExecution e = execution;
    if (e != null) {
      e.stop();
    }
  }

  /** Records that a stop was asked for; true the first time only. */
  synchronized boolean stopAsked() {
    if (stopAsked) {
      return false;
    }
    stopAsked = true;
    return true;
  }

  /**
   * Marks the run abandoned if its thread is still busy with it (a stop was asked for and the grace
   * passed); true when it was marked now.
   */
  synchronized boolean abandonIfBusy() {
    if (threadDone || abandoned) {
      return false;
    }
    abandoned = true;
    return true;
  }

  /** Whether a thread is still busy with the run and it was not abandoned yet. */
  synchronized boolean threadBusy() {
    return !threadDone && !abandoned;
  }

  /** Whether the run was abandoned (its thread may since have ended). */
  synchronized boolean abandoned() {
    return abandoned;
  }

  /** The thread is done with this run (or none will take it); whether it now leaves the pool. */
  synchronized boolean threadEnded() {
    threadDone = true;
    return retireIfDone();
  }

  /** The end write finished (or gave up); whether the run now leaves the pool. */
  synchronized boolean endWritten() {
    endPending = false;
    return retireIfDone();
  }

  private boolean retireIfDone() {
    if (threadDone && !endPending && !retired) {
      retired = true;
      return true;
    }
    return false;
  }

  /**
   * The run's name in log lines. Log calls pass the run itself, so that the name is only built for
   * a line that is written (the worker logs at INFO twice per instance, and many deployments run at
   * WARN).
   */
  @Override
  public String toString() {
    return "instance "
        + instance.id()
        + " ("
        + instance.idempotencyKey()
        + ") attempt "
        + instance.attempt();
  }
}
