package dev.carillon.worker;

import dev.carillon.metrics.Buckets;
import dev.carillon.metrics.TaskLabel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * The worker's counters and gauges, all named {@code carillon.worker.*} and tagged with the worker
 * id. Besides the worker's totals:
 *
 * <ul>
 *   <li>{@code run.duration{task, handler, queue, outcome}}: each recorded run from its start to
 *       its end (histogram, 100 ms to 24 h; its {@code _count} counts runs per task and outcome)
 *   <li>{@code claim.duration}: one claim statement (histogram, 1 ms to 10 s)
 *   <li>{@code claim.latency}: from an instance's publication to its claim (histogram, 1 ms to 10
 *       min; measured between two clocks, the publisher's and this worker's)
 *   <li>{@code timeouts.below.p99{task}}: task versions whose timeout is below their observed run
 *       duration P99 (warned once each)
 * </ul>
 *
 * <p>The {@code task} label is capped by {@link TaskLabel}. Thread-safe.
 */
public final class WorkerMetrics {
  /** The {@code queue} label of tasks that name none. */
  public static final String DEFAULT_QUEUE = "default";

  /** Records read from Kafka and looked at (re-reads after a pause count again). */
  public final Counter consumed;

  /** Records that were not a valid message, skipped. */
  public final Counter malformed;

  /** Instances this worker claimed. */
  public final Counter claimed;

  /** Valid records whose claim compare-and-set was lost (duplicate, running, done, unknown). */
  public final Counter lostClaims;

  /**
   * Records whose instance was not due yet when claimed, held to be claimed on its instant (each
   * hold counts; a claim sent a little early is held again).
   */
  public final Counter heldUntilDue;

  /**
   * Runs claimed ahead of their fire time ({@code worker.claim-ahead}), held on the worker and
   * started when the database's clock reached their {@code scheduled_at}.
   */
  public final Counter startedOnInstant;

  /** Runs recorded as SUCCESS. */
  public final Counter succeeded;

  /** Runs recorded as FAILED. */
  public final Counter failed;

  /** Runs that passed their deadline and were recorded as TIMEOUT. */
  public final Counter timedOut;

  /** Leases renewed by heartbeats (one per instance per heartbeat). */
  public final Counter leaseRenewals;

  /** Leases found lost by a heartbeat; their runs were cancelled. */
  public final Counter leasesLost;

  /** Runs released back to PENDING at shutdown. */
  public final Counter released;

  /** Runs whose outcome was discarded because they had been cancelled or their write was fenced. */
  public final Counter discarded;

  /** Ends whose write failed at first (database unreachable) and was tried again. */
  public final Counter endWriteRetries;

  /** Heartbeat statements sent (each renews every live lease of the worker at once). */
  public final Counter heartbeats;

  /** Exec agents' protocol lines ignored: unknown type or version, malformed, or cut. */
  public final Counter execIgnoredLines;

  /** Exec process trees still there after SIGKILL and the wait for them; given up on. */
  public final Counter execAbandonedTrees;

  /** Checkpoints stored for agents (each also renewed its run's lease). */
  public final Counter checkpointsSaved;

  /** Checkpoints refused because the attempt no longer held its instance; the run was stopped. */
  public final Counter checkpointsRefused;

  /** Effects performed and recorded as done through {@code once}. */
  public final Counter effectsPerformed;

  /** {@code once} calls that found the effect recorded as done and did not perform it again. */
  public final Counter effectsSkipped;

  /** Effects started again after an earlier start was never recorded as done (in doubt). */
  public final Counter effectsInDoubt;

  /**
   * Effects refused before they started, or performed and then refused their record, because the
   * attempt no longer held its instance; the run was stopped.
   */
  public final Counter effectsRefused;

  /**
   * Effects performed whose done record could not reach the database at first and was tried again
   * (see {@code ResumeRecords#recordDone}).
   */
  public final Counter effectRecordRetries;

  /**
   * Timeout advice checks put off to a later run of their task version, beyond the advisor's rate
   * or memory (see {@code TimeoutAdvisor}).
   */
  public final Counter timeoutChecksDeferred;

  /** Runs stopped because their lease could not be renewed before it could expire. */
  public final Counter fenced;

  /** Runs asked to stop that did not end within their grace. */
  public final Counter abandoned;

  /**
   * Runs asked to stop that had not ended within their grace while the worker's database did not
   * answer, so were not counted as abandoned yet (see {@code GiveUp}).
   */
  public final Counter abandonDeferred;

  /**
   * Valid records left unclaimed because this worker does not serve their task's queue or handler.
   */
  public final Counter notServed;

  private final MeterRegistry registry;

  private final String workerId;
  private final TaskLabel tasks;
  private final Timer claimDuration;
  private final Timer claimLatency;

  /**
   * Registers the meters, with the default cap on task labels.
   *
   * @param registry where to register
   * @param workerId the {@code worker} tag
   * @param running the number of runs in progress
   * @param freeSlots the number of runs that could start now
   * @param abandonedNow the number of runs abandoned now (stopped, still not ended)
   */
  public WorkerMetrics(
      MeterRegistry registry,
      String workerId,
      IntSupplier running,
      IntSupplier freeSlots,
      IntSupplier abandonedNow) {
    this(
        registry,
        workerId,
        running,
        freeSlots,
        abandonedNow,
        new TaskLabel(TaskLabel.DEFAULT_LIMIT));
  }

  /**
   * As the other constructor, with the cap on task labels.
   *
   * @param tasks the {@code task} label's limiter
   */
  public WorkerMetrics(
      MeterRegistry registry,
      String workerId,
      IntSupplier running,
      IntSupplier freeSlots,
      IntSupplier abandonedNow,
      TaskLabel tasks) {
    this.registry = registry;
    this.workerId = workerId;
    this.tasks = tasks;
    claimDuration =
        Buckets.STATEMENT
            .timer("carillon.worker.claim.duration", "time one claim statement took")
            .tag("worker", workerId)
            .register(registry);
    claimLatency =
        Buckets.CLAIM_LATENCY
            .timer(
                "carillon.worker.claim.latency",
                "time from an instance's publication to its claim by this worker")
            .tag("worker", workerId)
            .register(registry);
    // Present from the start, so that increase() and the alert rules see a zero first.
    timeoutsBelowP99(TaskLabel.OTHER);
    consumed = counter(registry, workerId, "records.consumed", "records read from Kafka");
    malformed = counter(registry, workerId, "records.malformed", "malformed records skipped");
    claimed = counter(registry, workerId, "claims", "instances claimed");
    lostClaims = counter(registry, workerId, "claims.lost", "claims lost to another actor");
    heldUntilDue =
        counter(
            registry,
            workerId,
            "claims.held",
            "records held until their instance was due, then claimed");
    startedOnInstant =
        counter(
            registry,
            workerId,
            "runs.claimed-ahead",
            "runs claimed ahead of their fire time and started on the instant");
    succeeded = counter(registry, workerId, "runs.succeeded", "runs recorded as SUCCESS");
    failed = counter(registry, workerId, "runs.failed", "runs recorded as FAILED");
    timedOut = counter(registry, workerId, "runs.timedout", "runs recorded as TIMEOUT");
    leaseRenewals = counter(registry, workerId, "leases.renewed", "lease renewals");
    leasesLost = counter(registry, workerId, "leases.lost", "leases lost, runs cancelled");
    released = counter(registry, workerId, "runs.released", "runs released at shutdown");
    discarded = counter(registry, workerId, "runs.discarded", "outcomes not recorded");
    endWriteRetries =
        counter(registry, workerId, "runs.end-write-retries", "end writes tried again");
    heartbeats = counter(registry, workerId, "heartbeats", "lease heartbeat statements");
    execIgnoredLines =
        counter(registry, workerId, "exec.lines.ignored", "exec protocol lines ignored");
    execAbandonedTrees =
        counter(registry, workerId, "exec.trees.abandoned", "exec trees left after SIGKILL");
    checkpointsSaved = counter(registry, workerId, "checkpoints.saved", "checkpoints stored");
    checkpointsRefused =
        counter(registry, workerId, "checkpoints.refused", "checkpoints refused (fenced)");
    effectsPerformed =
        counter(registry, workerId, "effects.performed", "effects performed and recorded");
    effectsSkipped =
        counter(registry, workerId, "effects.skipped", "effects already done, not repeated");
    effectsInDoubt =
        counter(registry, workerId, "effects.in-doubt", "effects started again in doubt");
    effectsRefused =
        counter(registry, workerId, "effects.refused", "effects or records refused (fenced)");
    effectRecordRetries =
        counter(registry, workerId, "effects.record-retries", "effect done records tried again");
    timeoutChecksDeferred =
        counter(
            registry,
            workerId,
            "timeout-advice.deferred",
            "timeout advice checks put off to a later run (rate or memory bound)");
    fenced =
        counter(registry, workerId, "runs.fenced", "runs stopped before an unrenewed lease ended");
    abandoned =
        counter(registry, workerId, "runs.abandoned", "stopped runs that did not end in time");
    abandonDeferred =
        counter(
            registry,
            workerId,
            "runs.abandon-deferred",
            "stopped runs not ended in time while the database did not answer");
    notServed =
        counter(
            registry, workerId, "claims.not-served", "records of a queue or handler not served");
    Gauge.builder("carillon.worker.running", running::getAsInt)
        .description("runs in progress")
        .tag("worker", workerId)
        .register(registry);
    Gauge.builder("carillon.worker.slots.free", freeSlots::getAsInt)
        .description("runs that could start now")
        .tag("worker", workerId)
        .register(registry);
    Gauge.builder("carillon.worker.runs.abandoned.now", abandonedNow::getAsInt)
        .description("runs stopped that have not ended after their grace; they keep their slots")
        .tag("worker", workerId)
        .register(registry);
  }

  /**
   * Registers the gauge of run threads waiting for their turn to send a statement ({@code
   * StatementGate}): a line that stays long means the pool is too small for the runs' checkpoints
   * and effects.
   */
  public void runStatementsWaiting(IntSupplier waiting) {
    Gauge.builder("carillon.worker.run-statements.waiting", waiting::getAsInt)
        .description("run threads waiting for their turn to send a statement")
        .tag("worker", workerId)
        .register(registry);
  }

  /** Records one claim statement's time. */
  public void claimTook(Duration took) {
    claimDuration.record(took);
  }

  /** Records the wait of one claimed instance since its publication. */
  public void claimLatency(Duration sincePublished) {
    claimLatency.record(sincePublished.isNegative() ? Duration.ZERO : sincePublished);
  }

  /**
   * Records one run that ended with {@code outcome} ({@code success}, {@code failed}, {@code
   * timeout}) after {@code took}.
   */
  public void runEnded(String taskId, String handler, String queue, String outcome, Duration took) {
    Buckets.RUN_DURATION
        .timer("carillon.worker.run.duration", "time from a run's start to its end, by task")
        .tag("worker", workerId)
        .tag("task", tasks.of(taskId))
        .tag("handler", handler)
        .tag("queue", queue)
        .tag("outcome", outcome.toLowerCase(Locale.ROOT))
        .register(registry)
        .record(took.isNegative() ? Duration.ZERO : took);
  }

  /** Counts a task version whose timeout is below its observed run duration P99. */
  public void timeoutBelowP99(String taskId) {
    timeoutsBelowP99(tasks.of(taskId)).increment();
  }

  private Counter timeoutsBelowP99(String label) {
    return Counter.builder("carillon.worker.timeouts.below.p99")
        .description("task versions whose timeout is below the P99 of their recent successful runs")
        .tag("worker", workerId)
        .tag("task", label)
        .register(registry);
  }

  private static Counter counter(MeterRegistry r, String workerId, String name, String help) {
    return Counter.builder("carillon.worker." + name)
        .description(help)
        .tag("worker", workerId)
        .register(r);
  }
}
