package dev.carillon.worker.lease;

import dev.carillon.loop.Pace;
import dev.carillon.loop.PeriodicLoop;
import dev.carillon.loop.PeriodicLoop.StopMode;
import dev.carillon.model.instance.Progress;
import dev.carillon.store.Lease;
import dev.carillon.store.LeaseStore;
import dev.carillon.worker.DatabaseWatch;
import dev.carillon.worker.LoopProgress;
import dev.carillon.worker.WorkerMetrics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of every run in progress, in one fenced statement per beat, on its own thread:
 * a plugin blocked in a long call cannot delay it. The same statement writes the progress reports
 * that changed since the last beat; an unchanged one is not sent again. A lease the statement does
 * not renew is lost (the attempt moved on, the row left RUNNING or another worker owns it), and its
 * run is cancelled.
 *
 * <p>Each lease is due for renewal a fixed interval after its last renewal (or its start) when one
 * is configured, otherwise after a third of its own timeout (the lease length), at most {@link
 * #MAX_ADAPTIVE} and at least {@link #MIN_ADAPTIVE}. The loop looks every {@link #TICK} (no IO
 * unless a lease is due); when any lease is due, all live leases are renewed together, so a run
 * with a short lease never waits behind one with a long lease.
 */
public final class Heartbeater implements AutoCloseable {
  /** The longest adaptive interval. */
  public static final Duration MAX_ADAPTIVE = Duration.ofSeconds(10);

  /** The shortest adaptive interval. */
  public static final Duration MIN_ADAPTIVE = Duration.ofMillis(100);

  /** How often the loop checks whether a lease is due. */
  public static final Duration TICK = Duration.ofMillis(50);

  private static final Logger log = LoggerFactory.getLogger(Heartbeater.class);

  private final LeaseStore store;
  private final LeaseHolder holder;
  private final WorkerMetrics metrics;
  private final String workerId;
  private final Optional<Duration> fixedInterval;
  private final LongSupplier nanoTime;
  private final LoopProgress progress;
  private final DatabaseWatch database;
  private final PeriodicLoop loop;

  private boolean failing;

  /**
   * Starts the loop at once.
   *
   * @param fixedInterval a fixed interval, or empty for the adaptive one
   * @param progress touched on every round of the loop (a failed beat is a round too)
   * @param database told whether each beat's statement worked
   */
  public Heartbeater(
      LeaseStore store,
      LeaseHolder holder,
      WorkerMetrics metrics,
      String workerId,
      Optional<Duration> fixedInterval,
      LoopProgress progress,
      DatabaseWatch database) {
    this.store = store;
    this.holder = holder;
    this.metrics = metrics;
    this.workerId = workerId;
    this.fixedInterval = fixedInterval;
    this.nanoTime = System::nanoTime;
    this.progress = progress;
    this.database = database;
    // Not interrupting on stop: a beat in progress finishes its statement.
    this.loop =
        new PeriodicLoop(
            "carillon-heartbeat-" + workerId,
            Pace.fixedDelay(TICK),
            StopMode.FINISH_ROUND,
            this::tick);
    loop.start();
  }

  private void tick() {
    progress.touch();
    try {
      List<LiveLease> live = holder.liveLeases();
      long now = nanoTime.getAsLong();
      boolean due =
          live.stream().anyMatch(l -> now - l.renewedNanos() >= interval(l.timeout()).toNanos());
      if (due) {
        beat(live, now);
      }
    } catch (Throwable t) {
      database.failed();
      // Keep beating: a database blip must not stop renewals for good. Log once per outage.
      if (!failing) {
        log.warn("Heartbeat failed, retrying: {}", t.toString());
      }
      failing = true;
    }
  }

  private void beat(List<LiveLease> live, long now) {
    List<Lease> leases = live.stream().map(LiveLease::lease).toList();
    Map<Lease, Progress> progress = new HashMap<>();
    for (LiveLease l : live) {
      if (l.progress() != null) {
        progress.put(l.lease(), l.progress());
      }
    }
    Set<Long> renewed = store.heartbeat(workerId, leases, progress);
    metrics.heartbeats.increment();
    database.succeeded();
    if (failing) {
      log.info("Heartbeats work again");
      failing = false;
    }
    metrics.leaseRenewals.increment(renewed.size());
    for (Lease l : leases) {
      if (renewed.contains(l.instanceId())) {
        holder.leaseRenewed(l, now);
        Progress p = progress.get(l);
        if (p != null) {
          holder.progressWritten(l, p);
        }
      } else {
        holder.leaseLost(
            l,
            "the heartbeat renewed no row for attempt "
                + l.attempt()
                + ": the instance has a newer attempt, left RUNNING or belongs to another worker");
      }
    }
  }

  /** How long after its last renewal a lease of {@code timeout} is due again. */
  Duration interval(Duration timeout) {
    return intervalFor(fixedInterval, timeout);
  }

  /**
   * How long after its last renewal a lease of {@code timeout} is due again: {@code fixedInterval}
   * when set, else a third of the lease, between {@link #MIN_ADAPTIVE} and {@link #MAX_ADAPTIVE}.
   */
  public static Duration intervalFor(Optional<Duration> fixedInterval, Duration timeout) {
    if (fixedInterval.isPresent()) {
      return fixedInterval.get();
    }
    Duration d = timeout.dividedBy(3);
    if (d.compareTo(MAX_ADAPTIVE) > 0) {
      return MAX_ADAPTIVE;
    }
    return d.compareTo(MIN_ADAPTIVE) < 0 ? MIN_ADAPTIVE : d;
  }

  /** Stops the loop; a beat in progress finishes. */
  @Override
  public void close() {
    loop.stopAndWait(Duration.ofSeconds(5));
  }
}
