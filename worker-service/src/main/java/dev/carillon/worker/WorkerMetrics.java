package dev.carillon.worker;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.IntSupplier;

/**
 * The worker's counters and gauges, all named {@code carillon.worker.*} and tagged with the worker
 * id. Thread-safe.
 */
public final class WorkerMetrics {
  /** Records read from Kafka and looked at (re-reads after a pause count again). */
  public final Counter consumed;

  /** Records that were not a valid message, skipped. */
  public final Counter malformed;

  /** Instances this worker claimed. */
  public final Counter claimed;

  /** Valid records whose claim compare-and-set was lost (duplicate, running, done, unknown). */
  public final Counter lostClaims;

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
   * Registers the meters.
   *
   * @param registry where to register
   * @param workerId the {@code worker} tag
   * @param running the number of runs in progress
   * @param freeSlots the number of runs that could start now
   */
  public WorkerMetrics(
      MeterRegistry registry, String workerId, IntSupplier running, IntSupplier freeSlots) {
    consumed = counter(registry, workerId, "records.consumed", "records read from Kafka");
    malformed = counter(registry, workerId, "records.malformed", "malformed records skipped");
    claimed = counter(registry, workerId, "claims", "instances claimed");
    lostClaims = counter(registry, workerId, "claims.lost", "claims lost to another actor");
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
    Gauge.builder("carillon.worker.running", running::getAsInt)
        .description("runs in progress")
        .tag("worker", workerId)
        .register(registry);
    Gauge.builder("carillon.worker.slots.free", freeSlots::getAsInt)
        .description("runs that could start now")
        .tag("worker", workerId)
        .register(registry);
  }

  private static Counter counter(MeterRegistry r, String workerId, String name, String help) {
    return Counter.builder("carillon.worker." + name)
        .description(help)
        .tag("worker", workerId)
        .register(r);
  }
}
