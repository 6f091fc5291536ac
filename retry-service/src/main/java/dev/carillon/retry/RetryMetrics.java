package dev.carillon.retry;

import dev.carillon.retry.ratelimit.RepublishLimiter.Verdict;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The retry service's meters, named {@code carillon.retry.*} (Prometheus: {@code
 * carillon_retry_*_total}). Counters only grow; the heartbeat reports their change per interval.
 *
 * <p>Thread-safe.
 */
public final class RetryMetrics {
  private final Counter scanned;
  private final Counter timedOut;
  private final Counter retried;
  private final Counter dead;
  private final Counter republished;
  private final Counter archived;
  private final Counter configApplied;
  private final Counter configRejected;
  private final Counter alertsSent;
  private final Counter alertsFailed;
  private final Map<Verdict, Counter> heldBack = new EnumMap<>(Verdict.class);
  private final AtomicLong lastScanEpochMillis = new AtomicLong();
  private final MeterRegistry registry;

  public RetryMetrics(MeterRegistry registry) {
    this.registry = registry;
    scanned = counter(registry, "carillon.retry.scanned", "instances examined by the scanners");
    timedOut =
        counter(registry, "carillon.retry.timed_out", "RUNNING instances whose lease expired");
    retried = counter(registry, "carillon.retry.retried", "instances scheduled for a retry");
    dead = counter(registry, "carillon.retry.dead", "instances moved to DEAD");
    republished = counter(registry, "carillon.retry.republished", "instance messages acknowledged");
    archived = counter(registry, "carillon.retry.archived", "instances moved to history");
    configApplied = counter(registry, "carillon.retry.config.applied", "config records applied");
    configRejected =
        counter(registry, "carillon.retry.config.rejected", "config records rejected as invalid");
    alertsSent = counter(registry, "carillon.retry.alerts.sent", "dead-letter webhook calls");
    alertsFailed = counter(registry, "carillon.retry.alerts.failed", "dead-letter alerts given up");
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
    Gauge.builder("carillon.retry.last_scan", lastScanEpochMillis, a -> a.get() / 1000.0)
        .description("when the last scan pass finished, seconds since the epoch")
        .baseUnit("seconds")
        .register(registry);
  }

  private static Counter counter(MeterRegistry registry, String name, String description) {
    return Counter.builder(name).description(description).register(registry);
  }

  /** Counts a row a scanner set aside ({@code carillon.retry.quarantined{scanner}}). */
  public void quarantined(String scanner) {
    Counter.builder("carillon.retry.quarantined")
        .description("rows set aside by a scanner until an operator clears them")
        .tag("scanner", scanner)
        .register(registry)
        .increment();
  }

  /** Counts a scanner's failed round ({@code carillon.retry.scan.failures{scanner}}). */
  public void scanFailed(String scanner) {
    Counter.builder("carillon.retry.scan.failures")
        .description("scanner rounds that failed; the other scanners went on")
        .tag("scanner", scanner)
        .register(registry)
        .increment();
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

  public void retried() {
    retried.increment();
  }

  public void dead() {
    dead.increment();
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

  public void alertSent() {
    alertsSent.increment();
  }

  public void alertFailed() {
    alertsFailed.increment();
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
        (long) retried.count(),
        (long) dead.count(),
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
