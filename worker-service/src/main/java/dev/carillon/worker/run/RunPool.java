package dev.carillon.worker.run;

import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.task.RunSpec;
import dev.carillon.store.AttemptEnd;
import dev.carillon.store.Lease;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.Outcome;
import dev.carillon.worker.DaemonThreads;
import dev.carillon.worker.WorkerMetrics;
import dev.carillon.worker.plugin.PluginRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runs of this worker: claimed instances waiting for a thread, runs in progress and ends being
 * written. It bounds two things: <em>concurrency</em> (plugin runs at once; a thread per run, taken
 * from a reusable pool) and <em>capacity</em> ({@code concurrency + prefetch}: instances claimed
 * and not yet recorded as ended). A prefetch above zero lets the consumer claim a whole poll batch
 * of short runs in one statement while earlier runs still hold the threads; the claimed instances
 * wait here, their leases renewed by the heartbeat, and start in claim order.
 *
 * <p>Every run has a state that moves by compare-and-set: QUEUED (claimed, waiting for a thread) to
 * RUNNING, then to exactly one of COMPLETING (the plugin returned or threw first; its outcome is
 * written, fenced by attempt), TIMED_OUT (the deadline came first; TIMEOUT is written), LEASE_LOST
 * (a heartbeat found the lease gone; nothing is written) or RELEASED (shutdown; the instance goes
 * back to PENDING). A QUEUED run can also become LEASE_LOST or RELEASED. Whatever a plugin does
 * after losing that race is discarded.
 *
 * <p>Ends are written by a {@link CompletionWriter}, which groups the ends that are ready at the
 * same time into one transaction; a run's thread hands its outcome over and is free for the next
 * run at once. A run leaves the pool (and gives back its capacity) when both its thread is done
 * with it and its end is written; so a plugin that ignores interrupts keeps its thread slot and its
 * capacity, and such plugins cannot pile up unbounded threads.
 *
 * <p>Thread-safe. {@link #startAll} is called by the consumer thread only, which makes {@link
 * #freeSlots()} a safe upper bound for the next claim.
 */
public final class RunPool implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RunPool.class);

  /** Where a run stands; see the class comment. */
  enum State {
    QUEUED,
    RUNNING,
    COMPLETING,
    TIMED_OUT,
    LEASE_LOST,
    RELEASED
  }

  /** One claimed instance, from its claim until it leaves the pool. */
  static final class Run {
    final ClaimedInstance instance;
    final Lease lease;
    final Duration timeout;
    final RunSpec spec;
    final AgentTask task;
    // When the lease was last known to be renewed (the claim, then each heartbeat that renewed
    // it, as System.nanoTime() before the statement was sent): it holds at least until this plus
    // the timeout. The heartbeat's schedule and the start check both read it.
    volatile long renewedNanos;
    final AtomicReference<State> state;
    volatile WorkerAgentContext context;
    volatile ScheduledFuture<?> deadlineTimer;

    // Guarded by this: the thread running the plugin (null when none), whether the thread is done
    // with this run, whether an end write is outstanding, and whether the run left the pool.
    private Thread thread;
    private boolean threadDone;
    private boolean endPending;
    private boolean retired;

    Run(ClaimedInstance instance, RunSpec spec, AgentTask task, State initial, long claimedNanos) {
      this.renewedNanos = claimedNanos;
      this.instance = instance;
      this.lease = new Lease(instance.id(), instance.attempt());
      this.timeout = instance.timeout();
      this.spec = spec;
      this.task = task;
      this.state = new AtomicReference<>(initial);
    }

    /**
     * The run's name in log lines. Log calls pass the run itself, so that the name is only built
     * for a line that is written (the worker logs at INFO twice per instance, and many deployments
     * run at WARN).
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

    /**
     * Moves {@code from → to}; when {@code to} writes an end, the write is marked outstanding in
     * the same step, so the run cannot leave the pool between the two.
     */
    synchronized boolean move(State from, State to) {
      if (!state.compareAndSet(from, to)) {
        return false;
      }
      if (to == State.COMPLETING || to == State.TIMED_OUT) {
        endPending = true;
      }
      return true;
    }

    /** Stops the plugin: flag first, so that code woken by the interrupt sees it. */
    void cancel() {
      WorkerAgentContext c = context;
      if (c != null) {
        c.cancel();
      }
      synchronized (this) {
        // Only while the thread still runs this plugin: pool threads move on to other runs.
        if (thread != null) {
          thread.interrupt();
        }
      }
    }

    /** QUEUED → RUNNING on thread {@code t}; false when the run was released or lost first. */
    synchronized boolean begin(Thread t) {
      if (!state.compareAndSet(State.QUEUED, State.RUNNING)) {
        return false;
      }
      thread = t;
      return true;
    }

    /** The thread is done with this run; returns whether the run should now leave the pool. */
    synchronized boolean threadEnded() {
      thread = null;
      threadDone = true;
      return retireIfDone();
    }

    /** The end write finished (or gave up); returns whether the run should now leave the pool. */
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
  }

  private final LeaseStore store;
  private final RunSpecCache tasks;
  private final PluginRegistry plugins;
  private final WorkerMetrics metrics;
  private final String workerId;
  private final int maxSummaryBytes;
  private final Clock clock;
  private final Semaphore threadSlots;
  private final Semaphore capacity;
  private final ConcurrentHashMap<Long, Run> runs = new ConcurrentHashMap<>();
  private final ArrayDeque<Run> queue = new ArrayDeque<>();
  private final ExecutorService threads;
  private final ScheduledExecutorService deadlines;
  private final ExecutorService definitionReader;
  private final CompletionWriter writer;
  private final Object changed = new Object();

  /** Cleared at shutdown, before instances are released: from then on nothing new starts. */
  private volatile boolean starting = true;

  /**
   * @param store where claims are completed and released
   * @param tasks what each task runs with (handler, params)
   * @param plugins the agents this worker can run
   * @param metrics the worker's meters
   * @param workerId this worker's name in events and logs
   * @param concurrency the most plugin runs at once
   * @param prefetch how many claimed instances may wait for a thread beyond {@code concurrency}
   * @param maxSummaryBytes the most UTF-8 bytes of a summary kept
   * @param clock the worker's clock, for {@code startedAt} and {@code deadline}
   */
  public RunPool(
      LeaseStore store,
      RunSpecCache tasks,
      PluginRegistry plugins,
      WorkerMetrics metrics,
      String workerId,
      int concurrency,
      int prefetch,
      int maxSummaryBytes,
      Clock clock) {
    this.store = store;
    this.tasks = tasks;
    this.plugins = plugins;
    this.metrics = metrics;
    this.workerId = workerId;
    this.maxSummaryBytes = maxSummaryBytes;
    this.clock = clock;
    this.threadSlots = new Semaphore(concurrency);
    this.capacity = new Semaphore(concurrency + prefetch);
    // Reused threads (a thread start costs more than a short run); daemon, so that a plugin that
    // never ends does not keep the JVM alive after shutdown. Unbounded only in principle: at most
    // `concurrency` run at once, plus the threads of stopped plugins that ignore interrupts.
    this.threads = Executors.newCachedThreadPool(DaemonThreads.named("carillon-run-" + workerId));
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(1, DaemonThreads.named("carillon-deadlines-" + workerId));
    // A run's timer is cancelled when the run ends, almost always long before it is due; without
    // this, every cancelled timer would stay queued until its deadline (500 runs a second with a
    // ten-minute timeout is 300,000 dead timers).
    timers.setRemoveOnCancelPolicy(true);
    this.deadlines = timers;
    this.definitionReader =
        Executors.newSingleThreadExecutor(DaemonThreads.named("carillon-definitions-" + workerId));
    this.writer = new CompletionWriter(store, metrics, workerId, MAX_END_BATCH);
  }

  /** The most ends written in one transaction. */
  static final int MAX_END_BATCH = 1000;

  /** How many more instances may be claimed now; never shrinks except by {@link #startAll}. */
  public int freeSlots() {
    return capacity.availablePermits();
  }

  /**
   * Waits until at least one more instance may be claimed, at most {@code timeout}.
   *
   * @return {@link #freeSlots()} at the end of the wait
   */
  public int awaitFreeSlots(Duration timeout) throws InterruptedException {
    await(timeout, () -> capacity.availablePermits() > 0);
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
    Set<String> ids = Set.copyOf(taskIds);
    return CompletableFuture.supplyAsync(() -> tasks.findAll(ids), definitionReader);
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
    if (claimed.isEmpty()) {
      return;
    }
    if (!capacity.tryAcquire(claimed.size())) {
      throw new IllegalStateException(
          "no room for "
              + claimed.size()
              + " claimed instance(s): claims must not exceed freeSlots()");
    }
    Map<String, Optional<RunSpec>> defs;
    try {
      defs = new HashMap<>(read.join());
      Set<String> missing =
          claimed.stream()
              .map(ClaimedInstance::taskId)
              .filter(id -> !defs.containsKey(id))
              .collect(Collectors.toSet());
      if (!missing.isEmpty()) {
        defs.putAll(tasks.findAll(missing));
      }
    } catch (RuntimeException e) {
      // The claims stay RUNNING with our lease; without heartbeats they expire and the retry
      // service moves them on.
      capacity.release(claimed.size());
      log.error(
          "Could not read the task definitions of {} claimed instance(s); their leases will"
              + " expire: {}",
          claimed.size(),
          e.toString());
      return;
    }
    for (ClaimedInstance i : claimed) {
      admit(i, defs.getOrDefault(i.taskId(), Optional.empty()), claimedNanos);
    }
    dispatch();
  }

  private void admit(ClaimedInstance claimed, Optional<RunSpec> def, long claimedNanos) {
    if (def.isEmpty()) {
      failAtOnce(
          claimed,
          "task '"
              + claimed.taskId()
              + "' has no runnable definition (deleted, or its handler or params edited into an"
              + " invalid state); retryable");
      return;
    }
    String handler = def.get().handler();
    Optional<AgentTask> task = plugins.find(handler);
    if (task.isEmpty()) {
      failAtOnce(
          claimed,
          "no plugin for handler '"
              + handler
              + "' on worker "
              + workerId
              + "; known: "
              + plugins.types()
              + "; retryable, since a worker with that plugin may run it");
      return;
    }
    Run run = new Run(claimed, def.get(), task.get(), State.QUEUED, claimedNanos);
    runs.put(claimed.id(), run);
    synchronized (queue) {
      queue.add(run);
    }
  }

  private void failAtOnce(ClaimedInstance claimed, String reason) {
    log.warn("Instance {} attempt {} cannot run here: {}", claimed.id(), claimed.attempt(), reason);
    Run run = new Run(claimed, null, null, State.COMPLETING, System.nanoTime());
    synchronized (run) {
      run.endPending = true;
    }
    runs.put(claimed.id(), run);
    run.threadEnded();
    writeEnd(run, Outcome.failure(reason, false));
  }

  /** Starts queued runs while thread slots are free. */
  private void dispatch() {
    while (true) {
      Run next;
      synchronized (queue) {
        if (!starting || queue.isEmpty() || !threadSlots.tryAcquire()) {
          return;
        }
        next = queue.poll();
      }
      try {
        threads.execute(() -> work(next));
      } catch (RejectedExecutionException e) {
        // Closed: the run stays QUEUED with its lease, which expires without heartbeats.
        threadSlots.release();
        log.warn("{} was not started: the pool is closed", next);
        return;
      }
    }
  }

  /**
   * A run thread's loop: runs {@code first}, then keeps its slot and takes the next waiting run
   * itself, so that a burst of short runs does not hand every run to a new thread.
   */
  private void work(Run first) {
    Run run = first;
    while (run != null) {
      execute(run);
      synchronized (queue) {
        run = starting ? queue.poll() : null;
      }
    }
    threadSlots.release();
    signal();
    // Something queued after the poll above found the queue empty, while this thread still held
    // its slot, is started here.
    dispatch();
  }

  /** Runs one claimed instance on the calling thread, which holds a slot. */
  private void execute(Run run) {
    long sinceRenewal = System.nanoTime() - run.renewedNanos;
    if (sinceRenewal >= run.timeout.toNanos() && run.move(State.QUEUED, State.LEASE_LOST)) {
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
      dequeue(run);
      return;
    }
    Thread me = Thread.currentThread();
    Instant startedAt = clock.instant();
    run.context =
        new WorkerAgentContext(
            run.instance, run.spec.paramsJson(), startedAt, startedAt.plus(run.timeout));
    if (!run.begin(me)) {
      // Released or lost while it waited; whoever moved it also took it out of the pool.
      return;
    }
    boolean retire = false;
    try {
      run.deadlineTimer =
          deadlines.schedule(
              () -> deadlineReached(run), run.timeout.toNanos(), TimeUnit.NANOSECONDS);
      log.info("Starting {} with handler '{}', timeout {}", run, run.spec.handler(), run.timeout);
      Outcome outcome;
      try {
        AgentResult result = run.task.run(run.context);
        outcome =
            result == null
                ? Outcome.failure(
                    "plugin "
                        + run.task.getClass().getName()
                        + " returned null instead of a result",
                    false)
                : Outcomes.success(result, maxSummaryBytes);
      } catch (Throwable thrown) {
        // Errors too (StackOverflowError, OutOfMemoryError, AssertionError): they fail the
        // instance, not the worker.
        outcome = Outcomes.failure(thrown);
      }
      finish(run, outcome);
    } catch (Throwable t) {
      log.error("Could not record the end of {}: {}", run, t.toString());
    } finally {
      ScheduledFuture<?> timer = run.deadlineTimer;
      if (timer != null) {
        timer.cancel(false);
      }
      retire = run.threadEnded();
      // A cancel() that raced with the end of the plugin, or a plugin that restored the flag, may
      // have left it set; it was meant for this run, not for the next one this thread takes.
      Thread.interrupted();
      if (retire) {
        retire(run);
      }
      signal();
    }
  }

  private void finish(Run run, Outcome outcome) {
    if (!run.move(State.RUNNING, State.COMPLETING)) {
      metrics.discarded.increment();
      log.info(
          "{} ended after it was stopped ({}); its outcome {} is discarded",
          run,
          run.state.get(),
          outcome.status());
      return;
    }
    signal();
    writeEnd(run, outcome);
  }

  private void deadlineReached(Run run) {
    if (!run.move(State.RUNNING, State.TIMED_OUT)) {
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
    writeEnd(run, Outcome.timeout(reason));
  }

  /**
   * Hands an attempt's end to the writer. The result of finished work must not be dropped because
   * PostgreSQL restarted at that moment (the instance would stay RUNNING, time out and run a second
   * time), so the writer tries again while the database cannot be reached, bounded by the lease
   * length: past it the retry service has moved the instance on, and the fenced write would change
   * nothing anyway. Meanwhile the heartbeat keeps the lease (see {@link #liveLeases()}).
   */
  private void writeEnd(Run run, Outcome outcome) {
    writer
        .submit(new AttemptEnd(run.lease, outcome), run.timeout)
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
                  retire(run);
                }
                signal();
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

  /** The run leaves the pool and gives its capacity back. */
  private void retire(Run run) {
    runs.remove(run.instance.id(), run);
    capacity.release();
  }

  /**
   * A claimed instance whose lease must be kept, as the heartbeat sees it.
   *
   * @param lease the claim to renew
   * @param timeout the lease length
   * @param renewedNanos {@link System#nanoTime()} when the lease was last known to be renewed
   *     (before its claim was sent, or its last renewal): it holds until at least this plus the
   *     timeout
   */
  public record LiveLease(Lease lease, Duration timeout, long renewedNanos) {}

  /**
   * The leases to keep alive: instances waiting for a thread, runs in progress, and runs whose end
   * is being written (while the database is unreachable that can take a while, and the lease must
   * not expire meanwhile).
   */
  public List<LiveLease> liveLeases() {
    List<LiveLease> out = new ArrayList<>();
    for (Run r : runs.values()) {
      State state = r.state.get();
      if (state == State.QUEUED
          || state == State.RUNNING
          || state == State.COMPLETING
          || state == State.TIMED_OUT) {
        out.add(new LiveLease(r.lease, r.timeout, r.renewedNanos));
      }
    }
    return out;
  }

  /**
   * A heartbeat renewed {@code lease} with a statement sent at {@code sentNanos} ({@link
   * System#nanoTime()}), so the lease holds at least until then plus its timeout.
   */
  public void leaseRenewed(Lease lease, long sentNanos) {
    Run run = runs.get(lease.instanceId());
    if (run != null && run.lease.equals(lease) && sentNanos > run.renewedNanos) {
      run.renewedNanos = sentNanos;
    }
  }

  /**
   * A heartbeat did not renew {@code lease}: the run is cancelled (or, when it was still waiting,
   * never started) and nothing it produces is recorded. Does nothing when the run already ended or
   * was stopped for another reason.
   */
  public void leaseLost(Lease lease, String reason) {
    Run run = runs.get(lease.instanceId());
    if (run == null || !run.lease.equals(lease)) {
      return;
    }
    if (run.move(State.QUEUED, State.LEASE_LOST)) {
      metrics.leasesLost.increment();
      log.warn(
          "{} lost its lease while waiting for a thread ({}); it will not run here", run, reason);
      dequeue(run);
    } else if (run.move(State.RUNNING, State.LEASE_LOST)) {
      metrics.leasesLost.increment();
      log.warn(
          "{} lost its lease ({}); cancelling the run, its result will not be written",
          run,
          reason);
      run.cancel();
    }
    signal();
  }

  /** Takes a run that never started out of the queue and the pool. */
  private void dequeue(Run run) {
    synchronized (queue) {
      queue.remove(run);
    }
    if (run.threadEnded()) {
      retire(run);
    }
  }

  /**
   * Waits until no instance is waiting, RUNNING or COMPLETING (runs stopped for other reasons may
   * still be ending), at most {@code timeout}.
   *
   * @return whether the worker became quiet in time
   */
  public boolean awaitQuiet(Duration timeout) throws InterruptedException {
    return await(timeout, () -> runs.values().stream().noneMatch(r -> isActive(r.state.get())));
  }

  /**
   * Waits until every run has left the pool (thread ended, end written), at most {@code timeout}.
   */
  public boolean awaitThreads(Duration timeout) throws InterruptedException {
    return await(timeout, runs::isEmpty);
  }

  private static boolean isActive(State s) {
    return s == State.QUEUED || s == State.RUNNING || s == State.COMPLETING;
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
   * Shutdown, first step: nothing new starts from now on, and the instances still waiting for a
   * slot go back ({@code RUNNING → PENDING}, no retry consumed), fenced by attempt, so that another
   * worker starts them at once instead of after this worker's drain.
   *
   * @param reason recorded with each release
   * @return the instances released, to be published again
   */
  public List<ClaimedInstance> releaseWaiting(String reason) {
    starting = false;
    return release(reason, false);
  }

  /**
   * Shutdown, last step: stops every run still RUNNING or waiting and gives its instance back
   * ({@code RUNNING → PENDING}, no retry consumed), fenced by attempt.
   *
   * @param reason recorded with each release
   * @return the instances released, to be published again
   */
  public List<ClaimedInstance> releaseAll(String reason) {
    starting = false;
    return release(reason, true);
  }

  private List<ClaimedInstance> release(String reason, boolean running) {
    List<ClaimedInstance> released = new ArrayList<>();
    for (Run run : runs.values()) {
      boolean waiting = run.move(State.QUEUED, State.RELEASED);
      if (!waiting && !(running && run.move(State.RUNNING, State.RELEASED))) {
        continue;
      }
      if (waiting) {
        dequeue(run);
      } else {
        run.cancel();
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
    signal();
    return released;
  }

  /**
   * Stops the deadline timer and the end writer (ends not yet written are given up; callers wait
   * with {@link #awaitThreads} first). Runs still going keep their daemon threads.
   */
  @Override
  public void close() {
    deadlines.shutdownNow();
    definitionReader.shutdownNow();
    writer.close();
    threads.shutdown();
  }
}
