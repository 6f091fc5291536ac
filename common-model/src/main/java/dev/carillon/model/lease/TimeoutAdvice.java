package dev.carillon.model.lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A lease length from evidence: the 99th percentile of a task's observed run durations (its recent
 * successes) times {@value #FACTOR}, the design's rule for a lock expiry. Agent runs have long
 * tails, so a timeout set from the mean kills the tail's runs, which then run again; P99 × 1.5
 * leaves the tail room and still bounds a run that hangs.
 *
 * <p>P99 is the nearest-rank percentile: the {@code ceil(0.99 × n)}-th smallest duration, always an
 * observed value. The suggestion is rounded up to a whole second. Fewer than {@value #MIN_SAMPLES}
 * durations are not evidence.
 *
 * @param sampleSize how many durations it was computed from
 * @param p99 the nearest-rank 99th percentile
 * @param suggested {@code p99 × 1.5}, rounded up to a whole second
 */
public record TimeoutAdvice(int sampleSize, Duration p99, Duration suggested) {
  /** The margin over P99. */
  public static final double FACTOR = 1.5;

  /** The fewest durations that count as evidence. */
  public static final int MIN_SAMPLES = 20;

  public TimeoutAdvice {
    if (sampleSize < MIN_SAMPLES) {
      throw new IllegalArgumentException(
          "sampleSize must be at least " + MIN_SAMPLES + ", was " + sampleSize);
    }
    Objects.requireNonNull(p99, "p99");
    Objects.requireNonNull(suggested, "suggested");
  }

  /**
   * The advice from {@code durations} (in any order), or empty with fewer than {@value
   * #MIN_SAMPLES}.
   */
  public static Optional<TimeoutAdvice> from(List<Duration> durations) {
    if (durations.size() < MIN_SAMPLES) {
      return Optional.empty();
    }
    List<Duration> sorted = new ArrayList<>(durations);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(0.99 * sorted.size());
    Duration p99 = sorted.get(rank - 1);
    long millis = (long) Math.ceil(p99.toMillis() * FACTOR);
    Duration suggested = Duration.ofSeconds((millis + 999) / 1000);
    return Optional.of(new TimeoutAdvice(sorted.size(), p99, suggested));
  }

  /** Whether {@code timeout} is shorter than the observed P99: a run in a hundred is killed. */
  public boolean isAbove(Duration timeout) {
    return p99.compareTo(timeout) > 0;
  }
}
