package dev.carillon.worker.run;

import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.InstanceStore;
import dev.carillon.store.Lease;
import dev.carillon.store.Outcome;
import dev.carillon.worker.WorkerMetrics;
import dev.carillon.worker.plugin.PluginRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runs in progress on this worker: a fixed number of slots, one dedicated thread per run, a
 * deadline per run, and the single place that decides who writes an attempt's end.
 *
 * <p>Every run has a state that moves once, by compare-and-set, from RUNNING to exactly one of:
 * COMPLETING (the plugin returned or threw first; its outcome is written, fenced by attempt),
 * TIMED_OUT (the deadline came first; TIMEOUT is written), LEASE_LOST (a heartbeat found the lease
 * gone; nothing is written) or RELEASED (shutdown; the instance goes back to PENDING). Whatever the
 * plugin does after losing that race is discarded.
 *
 * <p>A slot is taken when a claimed instance starts and given back when its thread ends, not when
 * its outcome is written: a plugin that ignores interrupts keeps its slot, so such plugins cannot
 * pile up unbounded threads.
 *
 * <p>Thread-safe. {@link #start} is called by the consumer thread only, which makes {@link
 * #freeSlots()} a safe upper bound for the next claim.
 */
public final class RunPool implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RunPool.class);

  /** Where a run stands; see the class comment. */
  enum State {
    RUNNING,
    COMPLETING,
    TIMED_OUT,
    LEASE_LOST,
    RELEASED
  }

  /** One run in progress. */
  static final class Run {
    final Instance instance;
    final Lease lease;
    final RunContext context;
    final Duration timeout;
    final long startedNanos = System.nanoTime();
    final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
    volatile Thread thread;
    volatile ScheduledFuture<?> deadlineTimer;

    Run(Instance instance, RunContext context) {
      this.instance = instance;
      this.lease = new Lease(instance.id(), instance.attempt());
      this.context = context;
      this.timeout = instance.timeout();
    }

    String name() {
      return "instance "
          + instance.id()
          + " ("
          + instance.idempotencyKey()
          + ") attempt "
          + instance.attempt();
    }

    /** Stops the plugin: flag first, so that code woken by the interrupt sees it. */
    void cancel() {
      context.cancel();
      Thread t = thread;
      if (t != null) {
        t.interrupt();
      }
    }
  }

  private final InstanceStore store;
  private final TaskCache tasks;
  private final PluginRegistry plugins;
  private final WorkerMetrics metrics;
  private final String workerId;
  private final int maxSummaryBytes;
  private final Clock clock;
  private final Semaphore slots;
  private final ConcurrentHashMap<Long, Run> runs = new ConcurrentHashMap<>();
  private final ScheduledExecutorService deadlines;
  private final Object changed = new Object();

  /**
   * @param store where claims are completed and released
   * @param tasks task definitions (handler, params)
   * @param plugins the agents this worker can run
   * @param metrics the worker's meters
   * @param workerId this worker's name in events and logs
   * @param concurrency the number of slots
   * @param maxSummaryBytes the most UTF-8 bytes of a summary kept
   * @param clock the worker's clock, for {@code startedAt} and {@code deadline}
   */
  public RunPool(
      InstanceStore store,
      TaskCache tasks,
      PluginRegistry plugins,
      WorkerMetrics metrics,
      String workerId,
      int concurrency,
      int maxSummaryBytes,
      Clock clock) {
    this.store = store;
    this.tasks = tasks;
    this.plugins = plugins;
    this.metrics = metrics;
    this.workerId = workerId;
    this.maxSummaryBytes = maxSummaryBytes;
    this.clock = clock;
    this.slots = new Semaphore(concurrency);
    this.deadlines =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "carillon-deadlines-" + workerId);
              t.setDaemon(true);
              return t;
            });
  }

  /** Slots free now; never shrinks except by {@link #start}. */
  public int freeSlots() {
    return slots.availablePermits();
  }

  /** Runs whose thread has not ended yet. */
  public int running() {
    return runs.size();
  }

  /**
   * Starts a claimed instance in a free slot. An instance that cannot run here (no valid task, no
   * plugin for its handler) is recorded as FAILED at once, retryable, and frees its slot.
   *
   * @throws IllegalStateException when no slot is free (the consumer claimed more than it should)
   */
  public void start(Instance claimed) {
    if (!slots.tryAcquire()) {
      throw new IllegalStateException(
          "no free slot for " + claimed.id() + ": claims must not exceed freeSlots()");
    }
    boolean started = false;
    try {
      started = launch(claimed);
    } catch (RuntimeException e) {
      // The claim stays RUNNING with our lease; without heartbeats it expires and the retry
      // service moves it on.
      log.error(
          "Could not start instance {} attempt {}; its lease will expire: {}",
          claimed.id(),
          claimed.attempt(),
          e.toString());
    } finally {
      if (!started) {
        slots.release();
      }
    }
  }

  private boolean launch(Instance claimed) {
    Lease lease = new Lease(claimed.id(), claimed.attempt());
    Optional<TaskDefinition> def = tasks.find(claimed.taskId());
    if (def.isEmpty()) {
      failAtOnce(
          lease,
          claimed,
          "task '"
              + claimed.taskId()
              + "' has no valid definition (deleted or edited into an invalid state); retryable");
      return false;
    }
    String handler = def.get().handler();
    Optional<AgentTask> task = plugins.find(handler);
    if (task.isEmpty()) {
      failAtOnce(
          lease,
          claimed,
          "no plugin for handler '"
              + handler
              + "' on worker "
              + workerId
              + "; known: "
              + plugins.types()
              + "; retryable, since a worker with that plugin may run it");
      return false;
    }
    Instant startedAt = clock.instant();
    Run run =
        new Run(
            claimed,
            new RunContext(
                claimed, def.get().paramsJson(), startedAt, startedAt.plus(claimed.timeout())));
    Thread t = new Thread(() -> execute(run, task.get()), "carillon-run-" + claimed.id());
    // Daemon: a plugin that never ends must not keep the JVM alive after shutdown.
    t.setDaemon(true);
    run.thread = t;
    runs.put(claimed.id(), run);
    run.deadlineTimer =
        deadlines.schedule(() -> deadlineReached(run), run.timeout.toNanos(), TimeUnit.NANOSECONDS);
    log.info("Starting {} with handler '{}', timeout {}", run.name(), handler, run.timeout);
    t.start();
    return true;
  }

  private void failAtOnce(Lease lease, Instance claimed, String reason) {
    log.warn("Instance {} attempt {} cannot run here: {}", claimed.id(), claimed.attempt(), reason);
    if (store.complete(lease, Outcome.failure(reason, false), workerId)) {
      metrics.failed.increment();
    }
  }

  private void execute(Run run, AgentTask task) {
    try {
      Outcome outcome;
      try {
        AgentResult result = task.run(run.context);
        outcome =
            result == null
                ? Outcome.failure(
                    "plugin " + task.getClass().getName() + " returned null instead of a result",
                    false)
                : Outcomes.success(result, maxSummaryBytes);
      } catch (Throwable thrown) {
        // Errors too (StackOverflowError, OutOfMemoryError, AssertionError): they fail the
        // instance, not the worker. This thread ends here either way.
        outcome = Outcomes.failure(thrown);
      }
      finish(run, outcome);
    } catch (Throwable t) {
      log.error("Could not record the end of {}: {}", run.name(), t.toString());
    } finally {
      ScheduledFuture<?> timer = run.deadlineTimer;
      if (timer != null) {
        timer.cancel(false);
      }
      runs.remove(run.instance.id(), run);
      slots.release();
      signal();
    }
  }

  private void finish(Run run, Outcome outcome) {
    if (!run.state.compareAndSet(State.RUNNING, State.COMPLETING)) {
      metrics.discarded.increment();
      log.info(
          "{} ended after it was stopped ({}); its outcome {} is discarded",
          run.name(),
          run.state.get(),
          outcome.status());
      return;
    }
    signal();
    if (writeEnd(run, () -> store.complete(run.lease, outcome, workerId))) {
      if (outcome.status() == InstanceStatus.SUCCESS) {
        metrics.succeeded.increment();
        log.info("{} succeeded{}", run.name(), outcome.truncated() ? " (summary truncated)" : "");
      } else {
        metrics.failed.increment();
        log.info(
            "{} failed{}: {}",
            run.name(),
            outcome.nonRetryable() ? " (non-retryable)" : "",
            outcome.reason());
      }
    } else {
      metrics.discarded.increment();
      log.warn(
          "{} ended with {} but the instance no longer carries this attempt or is no longer"
              + " RUNNING; nothing was written",
          run.name(),
          outcome.status());
    }
  }

  private void deadlineReached(Run run) {
    if (!run.state.compareAndSet(State.RUNNING, State.TIMED_OUT)) {
      return;
    }
    run.cancel();
    signal();
    String reason =
        "exceeded its timeout of "
            + run.timeout
            + " (started "
            + run.context.startedAt()
            + ", deadline "
            + run.context.deadline()
            + "); interrupted by worker "
            + workerId;
    try {
      if (writeEnd(run, () -> store.complete(run.lease, Outcome.timeout(reason), workerId))) {
        metrics.timedOut.increment();
        log.warn("{} {}", run.name(), reason);
      } else {
        log.warn(
            "{} passed its deadline, but its attempt was already over; nothing written",
            run.name());
      }
    } catch (RuntimeException e) {
      log.error("Could not record the timeout of {}: {}", run.name(), e.toString());
    }
  }

  /** Longest pause between two tries of an attempt's end write. */
  static final Duration MAX_END_WRITE_BACKOFF = Duration.ofSeconds(2);

  /**
   * Writes an attempt's end, trying again while the database cannot be reached. The result of
   * finished work must not be dropped because PostgreSQL restarted at that moment: the instance
   * would stay RUNNING, time out and run a second time. Meanwhile the heartbeat keeps the lease
   * (see {@link #liveLeases()}). Bounded by the lease length: past it the retry service has moved
   * the instance on, and the fenced write would change nothing anyway.
   *
   * @return what the fenced write returned
   * @throws RuntimeException the last failure, once the lease length has passed
   */
  private boolean writeEnd(Run run, java.util.function.BooleanSupplier write) {
    long giveUpAt = System.nanoTime() + run.timeout.toNanos();
    long backoffMillis = 50;
    boolean warned = false;
    while (true) {
      try {
        boolean written = write.getAsBoolean();
        if (warned) {
          log.info("{}: its end was recorded after the database came back", run.name());
        }
        return written;
      } catch (RuntimeException e) {
        if (System.nanoTime() - giveUpAt >= 0) {
          throw e;
        }
        if (!warned) {
          warned = true;
          metrics.endWriteRetries.increment();
          log.warn(
              "{}: could not record its end ({}); trying again until its lease would end",
              run.name(),
              e.toString());
        }
        try {
          // A database restart takes seconds; a short, growing pause keeps the load low.
          Thread.sleep(backoffMillis);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
        backoffMillis = Math.min(backoffMillis * 2, MAX_END_WRITE_BACKOFF.toMillis());
      }
    }
  }

  /**
   * A run still in progress, as the heartbeat sees it.
   *
   * @param lease the claim to renew
   * @param timeout the lease length
   * @param startedNanos {@link System#nanoTime()} when the run started
   */
  public record LiveLease(Lease lease, Duration timeout, long startedNanos) {}

  /**
   * The leases to keep alive: runs in progress, and runs whose end is being written (while the
   * database is unreachable that can take a while, and the lease must not expire meanwhile).
   */
  public List<LiveLease> liveLeases() {
    List<LiveLease> out = new ArrayList<>();
    for (Run r : runs.values()) {
      State state = r.state.get();
      if (state == State.RUNNING || state == State.COMPLETING || state == State.TIMED_OUT) {
        out.add(new LiveLease(r.lease, r.timeout, r.startedNanos));
      }
    }
    return out;
  }

  /**
   * A heartbeat did not renew {@code lease}: the run is cancelled and nothing it produces is
   * recorded. Does nothing when the run already ended or was stopped for another reason.
   */
  public void leaseLost(Lease lease, String reason) {
    Run run = runs.get(lease.instanceId());
    if (run == null || !run.lease.equals(lease)) {
      return;
    }
    if (run.state.compareAndSet(State.RUNNING, State.LEASE_LOST)) {
      metrics.leasesLost.increment();
      log.warn(
          "{} lost its lease ({}); cancelling the run, its result will not be written",
          run.name(),
          reason);
      run.cancel();
      signal();
    }
  }

  /**
   * Waits until no run is RUNNING or COMPLETING (runs stopped for other reasons may still be
   * ending), at most {@code timeout}.
   *
   * @return whether the worker became quiet in time
   */
  public boolean awaitQuiet(Duration timeout) throws InterruptedException {
    return await(timeout, () -> runs.values().stream().noneMatch(r -> isActive(r.state.get())));
  }

  /** Waits until every run's thread has ended, at most {@code timeout}. */
  public boolean awaitThreads(Duration timeout) throws InterruptedException {
    return await(timeout, runs::isEmpty);
  }

  private static boolean isActive(State s) {
    return s == State.RUNNING || s == State.COMPLETING;
  }

  private boolean await(Duration timeout, java.util.function.BooleanSupplier done)
      throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    synchronized (changed) {
      while (!done.getAsBoolean()) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        // Bounded wait: state changes signal, but a missed signal costs at most 50 ms.
        changed.wait(Math.max(1, Math.min(50, left / 1_000_000)));
      }
      return true;
    }
  }

  private void signal() {
    synchronized (changed) {
      changed.notifyAll();
    }
  }

  /**
   * Shutdown: stops every run still RUNNING and gives its instance back ({@code RUNNING → PENDING},
   * no retry consumed), fenced by attempt.
   *
   * @param reason recorded with each release
   * @return the instances released, to be published again
   */
  public List<Instance> releaseAll(String reason) {
    List<Instance> released = new ArrayList<>();
    for (Run run : runs.values()) {
      if (!run.state.compareAndSet(State.RUNNING, State.RELEASED)) {
        continue;
      }
      run.cancel();
      try {
        if (store.release(run.lease, workerId, reason)) {
          metrics.released.increment();
          released.add(run.instance);
          log.info("Released {} back to PENDING: {}", run.name(), reason);
        } else {
          log.warn("Could not release {}: its attempt was already over", run.name());
        }
      } catch (RuntimeException e) {
        log.error("Could not release {}; its lease will expire: {}", run.name(), e.toString());
      }
    }
    signal();
    return released;
  }

  /** Stops the deadline timer thread. Runs still going keep their daemon threads. */
  @Override
  public void close() {
    deadlines.shutdownNow();
  }
}
