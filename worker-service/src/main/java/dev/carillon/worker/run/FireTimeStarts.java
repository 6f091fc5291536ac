package dev.carillon.worker.run;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the run of an instance claimed ahead of its fire time ({@code worker.claim-ahead}) may
 * start: the moment, on {@link System#nanoTime()}, at which PostgreSQL's clock reaches the
 * instance's {@code scheduled_at}, and never before it. The database's clock stays the one that
 * decides, as it does for a claim at the instant; what moves is only the claim statement, which is
 * then off the fire's path.
 *
 * <p>Two bounds, the earlier of which is used; each alone never starts a run early:
 *
 * <ul>
 *   <li><b>The measured clock.</b> A reading {@code d} of the database's clock ({@code
 *       clock_timestamp()}) that returned at local time {@code r} was taken before {@code r}, so at
 *       any later local {@code t} the database's clock reads at least {@code d + (t - r)} (both
 *       clocks advance alike over seconds). Of {@value #SAMPLES} readings in a row the largest
 *       {@code d - r} is kept: off by at most the shortest round trip, well under a millisecond on
 *       a local network. Read again when older than {@link #REMEASURE_AFTER}, so that drift and a
 *       stepped database clock are followed.
 *   <li><b>The claim.</b> It took only instances due within {@code claimAhead} of the database's
 *       clock at its start, so {@code claimAhead} after it returned every one of them is due. This
 *       bound alone is used when the clock cannot be read.
 * </ul>
 *
 * <p>Thread-safe; the consumer thread calls it.
 */
public final class FireTimeStarts {
  /** How old a measurement may get before the next start measures again. */
  public static final Duration REMEASURE_AFTER = Duration.ofSeconds(5);

  /** Readings per measurement; the tightest is kept. */
  static final int SAMPLES = 3;

  private static final Logger log = LoggerFactory.getLogger(FireTimeStarts.class);

  private final Duration claimAhead;
  private final Supplier<Instant> databaseTime;
  private final LongSupplier nanoTime;

  // Guarded by this. The database's epoch nanoseconds minus local nanoTime: a lower bound.
  private boolean measured;
  private long lowerBound;
  private long measuredAtNanos;
  private boolean failing;

  /**
   * @param claimAhead how far ahead of the database's clock a claim takes instances; zero starts
   *     every run at once (the claim took only due instances)
   * @param databaseTime reads PostgreSQL's clock, one round trip
   * @param nanoTime the local monotonic clock ({@code System::nanoTime})
   */
  public FireTimeStarts(
      Duration claimAhead, Supplier<Instant> databaseTime, LongSupplier nanoTime) {
    this.claimAhead =
        Duration.ofMillis(Objects.requireNonNull(claimAhead, "claimAhead").toMillis());
    if (this.claimAhead.isNegative()) {
      throw new IllegalArgumentException("claimAhead must not be negative, was " + claimAhead);
    }
    this.databaseTime = Objects.requireNonNull(databaseTime, "databaseTime");
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /** Starts every run at once: for a worker that claims only due instances. */
  public static FireTimeStarts atOnce() {
    return new FireTimeStarts(
        Duration.ZERO,
        () -> {
          throw new IllegalStateException("not read: claims take only due instances");
        },
        System::nanoTime);
  }

  /** Whether runs may be claimed ahead, so that {@link #startNanos} can lie in the future. */
  public boolean claimsAhead() {
    return !claimAhead.isZero();
  }

  /**
   * The local {@code nanoTime} from which the run of an instance due at {@code scheduledAt} may
   * start; at or before {@code claimReturnedNanos} means at once.
   *
   * @param claimReturnedNanos the local {@code nanoTime} at or after the claim statement returned
   */
  public synchronized long startNanos(Instant scheduledAt, long claimReturnedNanos) {
    if (claimAhead.isZero()) {
      return claimReturnedNanos;
    }
    long byClaim = claimReturnedNanos + claimAhead.toNanos();
    measureIfStale();
    if (!measured) {
      return byClaim;
    }
    return Math.min(byClaim, epochNanos(scheduledAt) - lowerBound);
  }

  private void measureIfStale() {
    long now = nanoTime.getAsLong();
    if (measured && now - measuredAtNanos < REMEASURE_AFTER.toNanos()) {
      return;
    }
    try {
      long best = Long.MIN_VALUE;
      for (int i = 0; i < SAMPLES; i++) {
        Instant d = databaseTime.get();
        long r = nanoTime.getAsLong();
        best = Math.max(best, epochNanos(d) - r);
      }
      lowerBound = best;
      measured = true;
      measuredAtNanos = now;
      if (failing) {
        failing = false;
        log.info("PostgreSQL's clock can be read again; runs claimed ahead start on the instant");
      }
    } catch (RuntimeException e) {
      // The last measurement, if any, stays a lower bound (up to drift over its age); the next
      // start measures again.
      if (!failing) {
        failing = true;
        log.warn(
            "Cannot read PostgreSQL's clock ({}); runs claimed ahead start {} after their claim,"
                + " or by the last measurement if that is earlier",
            e.toString(),
            claimAhead);
      }
    }
  }

  private static long epochNanos(Instant t) {
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
  }
}
