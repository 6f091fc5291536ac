package dev.carillon.worker.run;

import dev.carillon.api.AgentTask;
import dev.carillon.logging.InstanceMdc;
import dev.carillon.model.agent.BuiltInHandler;
import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.RunSpec;
import dev.carillon.spec.ParamsOverride;
import dev.carillon.store.Outcome;
import dev.carillon.worker.DaemonThreads;
import dev.carillon.worker.WorkerMetrics;
import dev.carillon.worker.plugin.PluginRegistry;
import io.opentelemetry.context.Context;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes claimed instances into the pool: reserves their room, finds what each runs with (its task's
 * {@link RunSpec} and the plugin its handler names) and queues it for a thread, or records it as
 * FAILED at once (retryable) when it cannot run here.
 *
 * <p>A run claimed ahead of its fire time ({@code worker.claim-ahead}) is queued when {@link
 * FireTimeStarts} says the database's clock has reached its {@code scheduled_at}, by a timer; until
 * then it holds its room and its lease like any waiting run (a release or a lost lease meanwhile
 * takes it out, and the timer then leaves it alone).
 *
 * <p>Called by the consumer thread only (see {@link RunPool#startAll}); the definitions are read on
 * the admission's own reader thread so that the read overlaps the claim.
 */
final class Admission implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Admission.class);

  private final Runs runs;
  private final StartQueue queue;
  private final EndRecorder ends;
  private final RunSpecCache specs;
  private final PluginRegistry plugins;
  private final Set<BuiltInHandler> builtIns;
  private final String workerId;
  private final ExecutorService definitionReader;
  private final Optional<TimeoutAdvisor> advisor;
  private final FireTimeStarts starts;
  // Only for a worker that claims ahead (null otherwise): nothing else waits for an instant.
  private final ScheduledExecutorService startTimer;
  private final WorkerMetrics metrics;

  Admission(
      Runs runs,
      StartQueue queue,
      EndRecorder ends,
      RunSpecCache specs,
      PluginRegistry plugins,
      Set<BuiltInHandler> builtIns,
      String workerId,
      Optional<TimeoutAdvisor> advisor,
      FireTimeStarts starts,
      WorkerMetrics metrics) {
    this.advisor = advisor;
    this.starts = starts;
    this.metrics = metrics;
    if (starts.claimsAhead()) {
      ScheduledThreadPoolExecutor timer =
          new ScheduledThreadPoolExecutor(1, DaemonThreads.named("carillon-starts-" + workerId));
      timer.setRemoveOnCancelPolicy(true);
      this.startTimer = timer;
    } else {
      this.startTimer = null;
    }
    this.runs = runs;
    this.queue = queue;
    this.ends = ends;
    this.specs = specs;
    this.plugins = plugins;
    this.builtIns = Set.copyOf(builtIns);
    this.workerId = workerId;
    this.definitionReader =
        Executors.newSingleThreadExecutor(DaemonThreads.named("carillon-definitions-" + workerId));
  }

  /** Starts reading the run specs of {@code taskIds} on the reader thread. */
  CompletableFuture<Map<String, Optional<RunSpec>>> readDefinitions(Collection<String> taskIds) {
    Set<String> ids = Set.copyOf(taskIds);
    return CompletableFuture.supplyAsync(() -> specs.findAll(ids), definitionReader);
  }

  /** See {@link RunPool#startAll}. */
  void admitAll(
      List<ClaimedInstance> claimed,
      CompletableFuture<Map<String, Optional<RunSpec>>> read,
      long claimedNanos,
      Map<Long, Context> traces) {
    if (claimed.isEmpty()) {
      return;
    }
    if (!runs.reserve(claimed.size())) {
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
        defs.putAll(specs.findAll(missing));
      }
    } catch (RuntimeException e) {
      // The claims stay RUNNING with our lease; without heartbeats they expire and the retry
      // service moves them on.
      runs.unreserve(claimed.size());
      log.error(
          "Could not read the task definitions of {} claimed instance(s); their leases will"
              + " expire: {}",
          claimed.size(),
          e.toString());
      return;
    }
    for (ClaimedInstance i : claimed) {
      try (InstanceMdc mdc = InstanceMdc.instance(i.taskId(), i.windowKey(), i.id(), i.attempt())) {
        admit(i, defs.getOrDefault(i.taskId(), Optional.empty()), claimedNanos, traces.get(i.id()));
      }
    }
    queue.startWaiting();
  }

  private void admit(
      ClaimedInstance claimed, Optional<RunSpec> def, long claimedNanos, Context trace) {
    if (def.isEmpty()) {
      failAtOnce(
          claimed,
          trace,
          "task '"
              + claimed.taskId()
              + "' has no runnable definition (deleted, or its handler or params edited into an"
              + " invalid state); retryable");
      return;
    }
    Optional<RunSpec> spec = withOverride(claimed, def.get(), trace);
    if (spec.isEmpty()) {
      return;
    }
    RunSpec run = spec.get();
    String handler = run.handler();
    Optional<BuiltInHandler> builtIn = BuiltInHandler.of(handler);
    if (builtIn.isPresent() && builtIns.contains(builtIn.get())) {
      // No plugin: the Runner runs it by its kind.
      queue(claimed, run, null, claimedNanos, trace);
      return;
    }
    if (builtIn.isPresent()) {
      failAtOnce(
          claimed,
          trace,
          "the built-in handler '"
              + handler
              + "' is not offered by worker "
              + workerId
              + " (worker.builtin-handlers); retryable, since a worker offering it may run it");
      return;
    }
    Optional<AgentTask> task = plugins.find(handler);
    if (task.isEmpty()) {
      failAtOnce(
          claimed,
          trace,
          "no plugin for handler '"
              + handler
              + "' on worker "
              + workerId
              + "; known: "
              + plugins.types()
              + "; retryable, since a worker with that plugin may run it");
      return;
    }
    queue(claimed, run, task.get(), claimedNanos, trace);
  }

  private void queue(
      ClaimedInstance claimed, RunSpec spec, AgentTask task, long claimedNanos, Context trace) {
    advisor.ifPresent(a -> a.check(claimed.taskId(), spec.version(), claimed.timeout()));
    Run run = Run.queued(claimed, spec, task, claimedNanos, trace);
    runs.add(run);
    long now = System.nanoTime();
    // Without claim-ahead the claim took only due instances and startNanos is now: no timer.
    long delay = starts.startNanos(claimed.scheduledAt(), now) - now;
    if (delay <= 0) {
      queue.add(run);
      return;
    }
    metrics.startedOnInstant.increment();
    log.debug("{} claimed ahead of its fire time; starting it in {} µs", run, delay / 1_000);
    try {
      startTimer.schedule(() -> startOnInstant(run), delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // Closed: the worker is stopping; the run stays QUEUED for the drain to release.
      log.warn("{} was not scheduled to start: the pool is closed", run);
    }
  }

  /** The timer's side: queues a run claimed ahead once its instance is due, unless it left. */
  private void startOnInstant(Run run) {
    if (run.state() != RunState.QUEUED) {
      return;
    }
    queue.add(run);
    queue.startWaiting();
  }

  /**
   * The spec this instance runs with: the task's, with a run-now's params override merged over its
   * params ({@link ParamsOverride#merge}). Empty, with the instance failed, when the merged params
   * break a rule (the task's params grew past the limit since the run was asked for).
   */
  private Optional<RunSpec> withOverride(ClaimedInstance claimed, RunSpec def, Context trace) {
    if (claimed.paramsOverride() == null) {
      return Optional.of(def);
    }
    try {
      return Optional.of(
          new RunSpec(
              def.taskId(),
              def.handler(),
              ParamsOverride.merge(def.paramsJson(), claimed.paramsOverride()),
              def.version()));
    } catch (InvalidTaskException | IllegalArgumentException e) {
      failAtOnce(
          claimed,
          trace,
          "the run's params override merged over task '"
              + claimed.taskId()
              + "''s params is not valid: "
              + e.getMessage());
      return Optional.empty();
    }
  }

  private void failAtOnce(ClaimedInstance claimed, Context trace, String reason) {
    log.warn("Instance {} attempt {} cannot run here: {}", claimed.id(), claimed.attempt(), reason);
    Run run = Run.unrunnable(claimed, System.nanoTime(), trace);
    runs.add(run);
    ends.record(run, Outcome.failure(reason, false));
  }

  /** Stops the reader thread. */
  @Override
  public void close() {
    definitionReader.shutdownNow();
    if (startTimer != null) {
      startTimer.shutdownNow();
    }
  }
}
