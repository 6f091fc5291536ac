package dev.carillon.retry.scan;

import dev.carillon.model.worker.Coverage;
import dev.carillon.retry.RetryMetrics;
import dev.carillon.store.PresenceStore;
import dev.carillon.store.PresenceStore.Waiting;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts the PENDING instances that wait for a worker (no live, ready worker serves their task's
 * queue with its handler) into {@code carillon.retry.waiting_for_worker{queue}}, at most every
 * {@link #EVERY}: the count reads every PENDING row. Each (queue, handler) that starts waiting is
 * logged once with the reason ({@link Coverage#waitingReason}), and once when it stops. Such
 * instances are not failed and not published again until a worker serves them (see {@code
 * RetryStore.stranded}).
 */
public final class WaitingScanner {
  /** The least time between two counts. */
  public static final Duration EVERY = Duration.ofSeconds(15);

  private static final Logger log = LoggerFactory.getLogger(WaitingScanner.class);

  private record Pair(String queue, String handler) {}

  private final PresenceStore store;
  private final RetryMetrics metrics;
  private final LongSupplier nanoTime;
  private Set<Pair> waiting = Set.of();
  private long lastNanos;
  private boolean counted;

  public WaitingScanner(PresenceStore store, RetryMetrics metrics, LongSupplier nanoTime) {
    this.store = store;
    this.metrics = metrics;
    this.nanoTime = nanoTime;
  }

  /** Counts when {@link #EVERY} has passed since the last count; returns the instances waiting. */
  public synchronized int scan() {
    long now = nanoTime.getAsLong();
    if (counted && now - lastNanos < EVERY.toNanos()) {
      return -1;
    }
    return count(now);
  }

  /** Counts now. */
  public synchronized int countNow() {
    return count(nanoTime.getAsLong());
  }

  private int count(long now) {
    counted = true;
    lastNanos = now;
    List<Waiting> rows = store.waiting();
    metrics.waitingForWorker(PresenceStore.byQueue(rows));
    Set<Pair> current = new HashSet<>();
    rows.forEach(w -> current.add(new Pair(w.queue(), w.handler())));
    if (!current.equals(waiting)) {
      PresenceStore.Snapshot workers = current.isEmpty() ? null : store.live();
      for (Waiting w : rows) {
        if (!waiting.contains(new Pair(w.queue(), w.handler()))) {
          log.warn(
              "{} PENDING instance(s) wait for a worker: {}; they are not failed, and not published"
                  + " again until a worker serves them",
              w.instances(),
              Coverage.waitingReason(w.queue(), w.handler(), workers.workers(), workers.at())
                  .orElse("a worker serves them now"));
        }
      }
      for (Pair p : waiting) {
        if (!current.contains(p)) {
          log.info(
              "Instances of queue {} with handler {} no longer wait for a worker",
              p.queue(),
              p.handler());
        }
      }
      waiting = current;
    }
    return rows.stream().mapToInt(Waiting::instances).sum();
  }
}
