package dev.carillon.worker.run;

import dev.carillon.model.agent.BuiltInHandler;
import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.task.RunSpec;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.ResumeStore;
import dev.carillon.worker.WorkerMetrics;
import dev.carillon.worker.lease.LeaseFence;
import dev.carillon.worker.lease.LeaseHolder;
import dev.carillon.worker.plugin.PluginRegistry;
import io.opentelemetry.context.Context;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The runs of this worker: claimed instances waiting for a thread, runs in progress and ends being
 * written. It bounds two things: <em>concurrency</em> (agent runs at once, on reused threads) and
 * <em>capacity</em> ({@code concurrency + prefetch}: instances claimed and not yet recorded as
 * ended). A prefetch above zero lets the consumer claim a whole poll batch of short runs in one
 * statement while earlier runs still hold the threads; the claimed instances wait here, their
 * leases renewed by the heartbeat, and start in claim order.
 *
 * <p>The pool is put together from small parts, one reason each:
 *
 * <ul>
 *   <li>{@link Run} and {@link RunState}: one run and its state machine, the only place a run's
 *       state changes (by compare-and-set);
 *   <li>{@link Runs}: the runs held and the capacity they take;
 *   <li>{@link Admission}: claimed instances in, as queued runs or immediate failures;
 *   <li>{@link StartQueue}: waiting runs started on reused threads, in order;
 *   <li>{@link Runner}: one run on its thread, its deadline, and its {@link AgentExecution} (the
 *       seam where the kind of agent, and how it is stopped, lives);
 *   <li>{@link EndRecorder}: ends handed to the {@link CompletionWriter}, which writes the ends
 *       ready at the same time in one transaction;
 *   <li>{@link RunLeases}: the lease bookkeeping the heartbeat reads and reports to ({@link
 *       #leases()});
 *   <li>{@link Stopper}: every stop of a started run, and the watch that it ends (a run that does
 *       not is abandoned and counted; too many at once and the worker gives up);
 *   <li>{@link Drain}: the releases of shutdown.
 * </ul>
 *
 * <p>Thread-safe. {@link #startAll} is called by the consumer thread only, which makes {@link
 * #freeSlots()} a safe upper bound for the next claim.
 */
public final class RunPool implements AutoCloseable {
  /** The most ends written in one transaction. */
  static final int MAX_END_BATCH = 1000;

  private final Runs runs;
  private final EndRecorder ends;
  private final Runner runner;
  private final StartQueue queue;
  private final Admission admission;
  private final RunLeases leases;
  private final Drain drain;
  private final ResumeStore resume;
  private final StatementGate statements;
  private final WorkerMetrics metrics;
  private final String workerId;
  private final Stopper stopper;

  /**
   * @param store where claims are completed and released
   * @param resume where runs keep their checkpoints and effects
   * @param specs what each task runs with (handler, params)
   * @param plugins the agents this worker can run
   * @param metrics the worker's meters
   * @param workerId this worker's name in events and logs
   * @param concurrency the most agent runs at once
   * @param prefetch how many claimed instances may wait for a thread beyond {@code concurrency}
   * @param maxSummaryBytes the most UTF-8 bytes of a summary kept
   * @param clock the worker's clock, for {@code startedAt} and {@code deadline}
   * @param builtIns the built-in handlers this worker offers and how their runs execute
   * @param fence when a run whose lease is not renewed is stopped, and how long a stopped run may
   *     take to end
   * @param heartbeatInterval the fixed lease renewal interval, or empty for the adaptive one
   * @param giveUp when runs that do not stop make the worker give up
   * @param telemetry where run spans go, and the timeout advisor
   * @param virtualThreads run on virtual threads where the JDK has them ({@link RunThreads})
   * @param dbPoolSize the connections of the pool {@code store} and {@code resume} use; run
   *     threads' own statements use at most that many at once ({@link StatementGate})
   * @param starts when a run claimed ahead of its fire time may start ({@link
   *     FireTimeStarts#atOnce()} for a worker that claims only due instances)
   */
  public RunPool(
      LeaseStore store,
      ResumeStore resume,
      RunSpecCache specs,
      PluginRegistry plugins,
      WorkerMetrics metrics,
      String workerId,
      int concurrency,
      int prefetch,
      int maxSummaryBytes,
      Clock clock,
      Map<BuiltInHandler, AgentKind> builtIns,
      LeaseFence fence,
      Optional<Duration> heartbeatInterval,
      GiveUp giveUp,
      RunTelemetry telemetry,
      boolean virtualThreads,
      int dbPoolSize,
      FireTimeStarts starts) {
    this.resume = resume;
    this.statements = StatementGate.forPool(dbPoolSize);
    metrics.runStatementsWaiting(statements::waiting);
    this.metrics = metrics;
    this.workerId = workerId;
    this.stopper = new Stopper(metrics, fence, giveUp, workerId);
    this.runs = new Runs(concurrency + prefetch);
    this.ends =
        new EndRecorder(
            new CompletionWriter(store, metrics, workerId, MAX_END_BATCH, concurrency + prefetch),
            runs,
            metrics,
            telemetry.tracing());
    this.runner =
        new Runner(
            runs,
            ends,
            metrics,
            workerId,
            maxSummaryBytes,
            clock,
            builtIns,
            fence,
            heartbeatInterval,
            stopper,
            this::resumeRecordsOf,
            telemetry.tracing());
    this.queue =
        new StartQueue(concurrency, "carillon-run-" + workerId, runner, runs, virtualThreads);
    this.admission =
        new Admission(
            runs,
            queue,
            ends,
            specs,
            plugins,
            builtIns.keySet(),
            workerId,
            telemetry.advisor(),
            starts,
            metrics);
    this.leases = new RunLeases(runs, queue, metrics, stopper);
    this.drain = new Drain(runs, queue, store, metrics, workerId, stopper);
  }

  /**
   * A run's checkpoints and effects. A method rather than a lambda in the constructor because they
   * report to {@link #leases}, which is built after the {@link Runner} (it withdraws waiting runs
   * from the queue the runner feeds); it is called only when a run starts, long after.
   */
  private ResumeRecords resumeRecordsOf(Run run) {
    return new ResumeRecords(resume, statements, run, leases, metrics, workerId);
  }

  /** How many more instances may be claimed now; never shrinks except by {@link #startAll}. */
  public int freeSlots() {
    return runs.free();
  }

  /**
   * Waits until at least one more instance may be claimed, at most {@code timeout}.
   *
   * @return {@link #freeSlots()} at the end of the wait
   */
  public int awaitFreeSlots(Duration timeout) throws InterruptedException {
    runs.awaitFree(timeout);
    return freeSlots();
  }

  /**
   * Claimed instances not yet recorded as ended (waiting, running, or having their end written).
   */
  public int running() {
    return runs.size();
  }

  /**
   * Starts reading the definitions of {@code taskIds} on the pool's reader thread, so that the read
   * overlaps the claim; hand the result to {@link #startAll(List, CompletableFuture, long)}.
   */
  public CompletableFuture<Map<String, Optional<RunSpec>>> readDefinitions(
      Collection<String> taskIds) {
    return admission.readDefinitions(taskIds);
  }

  /**
   * Takes claimed instances in: their task definitions come from {@code read} (started with {@link
   * #readDefinitions} before the claim; a task missing from it is read now), then each instance
   * waits for a thread, in order. An instance that cannot run here (no valid task, no plugin for
   * its handler) is recorded as FAILED at once, retryable.
   *
   * @param claimedNanos {@link System#nanoTime()} taken before the claim statement was sent: the
   *     leases began after it, so a run that has not started by this plus its timeout (and was not
   *     renewed meanwhile) may have lost its lease and is not started
   * @throws IllegalStateException when there is not enough capacity (the consumer claimed more than
   *     {@link #freeSlots()})
   */
  public void startAll(
      List<ClaimedInstance> claimed,
      CompletableFuture<Map<String, Optional<RunSpec>>> read,
      long claimedNanos) {
    startAll(claimed, read, claimedNanos, Map.of());
  }

  /**
   * As {@link #startAll(List, CompletableFuture, long)}, each run's spans continuing the trace
   * context of its message.
   *
   * @param traces the context each instance's message carried, by instance id; an instance without
   *     one starts at its derived root
   */
  public void startAll(
      List<ClaimedInstance> claimed,
      CompletableFuture<Map<String, Optional<RunSpec>>> read,
      long claimedNanos,
      Map<Long, Context> traces) {
    admission.admitAll(claimed, read, claimedNanos, traces);
  }

  /** Runs abandoned now: asked to stop, not ended after their grace; they keep their slots. */
  public int abandoned() {
    return stopper.abandoned();
  }

  /** The leases of this pool's runs, for the heartbeat. */
  public LeaseHolder leases() {
    return leases;
  }

  /**
   * Waits until no instance is waiting, RUNNING or COMPLETING (runs stopped for other reasons may
   * still be ending), at most {@code timeout}.
   *
   * @return whether the worker became quiet in time
   */
  public boolean awaitQuiet(Duration timeout) throws InterruptedException {
    return runs.awaitQuiet(timeout);
  }

  /**
   * Waits until every run has left the pool (thread ended, end written), at most {@code timeout}.
   */
  public boolean awaitThreads(Duration timeout) throws InterruptedException {
    return runs.awaitEmpty(timeout);
  }

  /**
   * Shutdown, first step: nothing new starts from now on, and the instances still waiting for a
   * slot go back ({@code RUNNING → PENDING}, no retry consumed), fenced by attempt, so that another
   * worker starts them at once instead of after this worker's drain.
   *
   * @param reason recorded with each release
   * @return the instances released, to be published again
   */
  public List<ClaimedInstance> releaseWaiting(String reason) {
    return drain.releaseWaiting(reason);
  }

  /**
   * Shutdown, last step: stops every run still RUNNING or waiting and gives its instance back
   * ({@code RUNNING → PENDING}, no retry consumed), fenced by attempt.
   *
   * @param reason recorded with each release
   * @return the instances released, to be published again
   */
  public List<ClaimedInstance> releaseAll(String reason) {
    return drain.releaseAll(reason);
  }

  /**
   * Stops the deadline timer and the end writer (ends not yet written are given up; callers wait
   * with {@link #awaitThreads} first). Runs still going keep their daemon threads.
   */
  @Override
  public void close() {
    stopper.close();
    runner.close();
    admission.close();
    ends.close();
    queue.close();
  }
}
