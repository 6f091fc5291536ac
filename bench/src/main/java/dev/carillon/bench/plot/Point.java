package dev.carillon.bench.plot;

import java.time.Instant;
import java.util.Objects;

/**
 * One measured run, as the plot needs it: a burst's throughput at its size, or a steady run's fire
 * lag at its rate. Runs are kept one per line in a points file ({@link PointsFile}) so that runs of
 * different sizes, made by separate invocations, end up in one plot.
 *
 * @param started when the invocation that measured it started (runs of one invocation share it)
 * @param workload {@code burst}, {@code steady} or {@code api}
 * @param system the system's display name
 * @param size a burst's instances due at once, or a steady run's fires per second
 * @param durable whether PostgreSQL ran with {@code synchronous_commit} and {@code
 *     full_page_writes} on
 * @param perSecond a burst's end-to-end instances per second; NaN for a steady run or a burst that
 *     did not finish
 * @param lagP50 a steady run's median fire lag in milliseconds; NaN for a burst
 * @param lagP99 a steady run's 99th percentile fire lag in milliseconds; NaN for a burst
 * @param duplicates executions beyond one per expected fire, plus unexpected ones
 * @param misses expected fires that never ran
 */
public record Point(
    Instant started,
    String workload,
    String system,
    long size,
    boolean durable,
    double perSecond,
    double lagP50,
    double lagP99,
    long duplicates,
    long misses) {

  public Point {
    Objects.requireNonNull(started, "started");
    Objects.requireNonNull(workload, "workload");
    Objects.requireNonNull(system, "system");
    if (size < 1) {
      throw new IllegalArgumentException("size must be positive, was " + size);
    }
  }

  /** The name of the series this point belongs to: the system, marked when it ran durable. */
  public String series() {
    return durable ? system + " (durable)" : system;
  }

  /** Whether the run executed every expected fire exactly once. */
  public boolean exact() {
    return duplicates == 0 && misses == 0;
  }
}
