package dev.carillon.retry;

import dev.carillon.metrics.TaskLabel;
import dev.carillon.retry.ratelimit.RepublishLimiter.Verdict;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The retry service's meters, named {@code carillon.retry.*} (Prometheus: {@code
 * carillon_retry_*_total}). Counters only grow; the heartbeat reports their change per interval.
 * {@code retried} and {@code dead} carry the {@code task} label (capped by {@link TaskLabel}); when
 * the last pass finished is a timestamp, {@code carillon_retry_last_scan_timestamp_seconds}.
 *
 * <p>Thread-safe.
 */
public final class RetryMetrics {
  private final Counter scanned;
  private final Counter timedOut;
  private final MeterRegistry registry;
  private final TaskLabel tasks;
  private final Counter republished;
  private final Counter archived;
  private final Counter configApplied;
  private final Counter configRejected;
  private final Counter alertsSent;
  private final Counter alertsFailed;
  private final Map<Verdict, Counter> heldBack = new EnumMap<>(Verdict.class);
  private final AtomicLong lastScanEpochMillis = new AtomicLong();
  private final Map<String, AtomicInteger> waitingByQueue = new ConcurrentHashMap<>();

  /** Meters with the default cap on task labels. */
  public RetryMetrics(MeterRegistry registry) {
    this(registry, new TaskLabel(TaskLabel.DEFAULT_LIMIT));
  }

  public RetryMetrics(MeterRegistry registry, TaskLabel tasks) {
    this.registry = registry;
    this.tasks = tasks;
    scanned = counter(registry, "carillon.retry.scanned", "instances examined by the scanners");
    timedOut =
        counter(registry, "carillon.retry.timed_out", "RUNNING instances whose lease expired");
    retried(TaskLabel.OTHER, 0);
    dead(TaskLabel.OTHER, 0);
    republished = counter(registry, "carillon.retry.republished", "instance messages acknowledged");
    archived = counter(registry, "carillon.retry.archived", "instances moved to history");
    configApplied = counter(registry, "carillon.retry.config.applied", "config records applied");
    configRejected =
        counter(registry, "carillon.retry.config.rejected", "config records rejected as invalid");
    alertsSent =
        counter(
            registry,
            "carillon.retry.alerts.sent",
            "DEAD alerts the webhook acknowledged (the alert outbox)");
    alertsFailed =
        counter(
            registry,
            "carillon.retry.alerts.failed",
            "failed deliveries of DEAD alerts (each stays in the outbox and is sent again)");
    for (Verdict v : Verdict.values()) {
      if (v != Verdict.GRANTED) {
        heldBack.put(
            v,
            Counter.builder("carillon.retry.held_back")
                .description("republishes held back by a rate limit, counted per scan")
                .tag("reason", v.tag())
                .register(registry));
      }
    }
    Gauge.builder("carillon.retry.last.scan.timestamp", lastScanEpochMillis, a -> a.get() / 1000.0)
        .description("when the last scan pass finished, in seconds since the epoch (0: never)")
        .baseUnit("seconds")
        .register(registry);
  }

  /**
   * Sets the gauge {@code carillon.retry.waiting_for_worker{queue}}: PENDING instances of the
   * queue's tasks that no live, ready worker serves. Queues missing from {@code byQueue} go to 0.
   */
  public void waitingForWorker(Map<String, Integer> byQueue) {
    byQueue.forEach(
        (queue, n) ->
            waitingByQueue
                .computeIfAbsent(
                    queue,
                    q -> {
                      AtomicInteger value = new AtomicInteger();
                      Gauge.builder("carillon.retry.waiting_for_worker", value, AtomicInteger::get)
                          .description("PENDING instances that no live, ready worker serves")
                          .tag("queue", q)
                          .register(registry);
                      return value;
                    })
                .set(n));
    waitingByQueue.forEach(
        (queue, value) -> {
          if (!byQueue.containsKey(queue)) {
            value.set(0);
          }
        });
  }

  /** The last value of {@code carillon.retry.waiting_for_worker} per queue. */
  public Map<String, Integer> waitingForWorker() {
    Map<String, Integer> out = new java.util.TreeMap<>();
    waitingByQueue.forEach((q, v) -> out.put(q, v.get()));
    return out;
  }

  private static Counter counter(MeterRegistry registry, String name, String description) {
    return Counter.builder(name).description(description).register(registry);
  }

  /** Counts a DEAD alert the webhook acknowledged. */
  public void alertSent() {
    alertsSent.increment();
  }

  /** Counts a failed delivery of a DEAD alert (it stays in the outbox). */
  public void alertFailed() {
    alertsFailed.increment();
  }

  /**
   * Registers both per-scanner counters at zero for {@code scanners}, so that they are in the
   * scrape from the start and an alert's {@code increase()} sees the first failure.
   */
  public void scanners(java.util.Collection<String> scanners) {
    scanners.forEach(
        scanner -> {
          quarantinedCounter(scanner);
          failuresCounter(scanner);
        });
  }

  /** Counts a row a scanner set aside ({@code carillon.retry.quarantined{scanner}}). */
  public void quarantined(String scanner) {
    quarantinedCounter(scanner).increment();
  }

  /** Counts a scanner's failed round ({@code carillon.retry.scan.failures{scanner}}). */
  public void scanFailed(String scanner) {
    failuresCounter(scanner).increment();
  }

  private Counter quarantinedCounter(String scanner) {
    return Counter.builder("carillon.retry.quarantined")
        .description("rows set aside by a scanner until an operator clears them")
        .tag("scanner", scanner)
        .register(registry);
  }

  private Counter failuresCounter(String scanner) {
    return Counter.builder("carillon.retry.scan.failures")
        .description("scanner rounds that failed; the other scanners went on")
        .tag("scanner", scanner)
        .register(registry);
  }

  /** Rows {@code scanner} has quarantined since start. */
  public double quarantinedBy(String scanner) {
    Counter c = registry.find("carillon.retry.quarantined").tag("scanner", scanner).counter();
    return c == null ? 0 : c.count();
  }

  /** Failed rounds of {@code scanner} since start. */
  public double failuresOf(String scanner) {
    Counter c = registry.find("carillon.retry.scan.failures").tag("scanner", scanner).counter();
    return c == null ? 0 : c.count();
  }

  public void scanned(int n) {
    scanned.increment(n);
  }

  public void timedOut(int n) {
    timedOut.increment(n);
  }

  /** Counts one instance of {@code taskId} scheduled for a retry. */
  public void retried(String taskId) {
    retried(tasks.of(taskId), 1);
  }

  /** Counts one instance of {@code taskId} moved to DEAD. */
  public void dead(String taskId) {
    dead(tasks.of(taskId), 1);
  }

  private void retried(String label, int n) {
    Counter.builder("carillon.retry.retried")
        .description("instances scheduled for a retry, by task")
        .tag("task", label)
        .register(registry)
        .increment(n);
  }

  private void dead(String label, int n) {
    Counter.builder("carillon.retry.dead")
        .description("instances moved to DEAD (the manual queue), by task")
        .tag("task", label)
        .register(registry)
        .increment(n);
  }

  private long sum(String name) {
    return (long) registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
  }

  public void republished(int n) {
    republished.increment(n);
  }

  public void archived(int n) {
    archived.increment(n);
  }

  public void configApplied() {
    configApplied.increment();
  }

  public void configRejected() {
    configRejected.increment();
  }

  /** Counts one instance held back for {@code verdict}; GRANTED is ignored. */
  public void heldBack(Verdict verdict) {
    heldBack(verdict, 1);
  }

  /** Counts {@code n} instances held back for {@code verdict}; GRANTED is ignored. */
  public void heldBack(Verdict verdict, int n) {
    Counter c = heldBack.get(verdict);
    if (c != null && n > 0) {
      c.increment(n);
    }
  }

  public void scanFinished(long epochMillis) {
    lastScanEpochMillis.set(epochMillis);
  }

  /** The totals so far, for the heartbeat line and tests. */
  public Totals totals() {
    return new Totals(
        (long) scanned.count(),
        (long) timedOut.count(),
        sum("carillon.retry.retried"),
        sum("carillon.retry.dead"),
        (long) republished.count(),
        (long) heldBack.values().stream().mapToDouble(Counter::count).sum(),
        (long) archived.count(),
        (long) configRejected.count(),
        lastScanEpochMillis.get());
  }

  /** Counter values at one moment. */
  public record Totals(
      long scanned,
      long timedOut,
      long retried,
      long dead,
      long republished,
      long heldBack,
      long archived,
      long configRejected,
      long lastScanEpochMillis) {

    /** The change since {@code before}. */
    public Totals minus(Totals before) {
      return new Totals(
          scanned - before.scanned,
          timedOut - before.timedOut,
          retried - before.retried,
          dead - before.dead,
          republished - before.republished,
          heldBack - before.heldBack,
          archived - before.archived,
          configRejected - before.configRejected,
          lastScanEpochMillis);
    }
  }
}
