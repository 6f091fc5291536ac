package dev.carillon.control.resources;

import dev.carillon.store.OverviewQueries.HourCount;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The overview's instances per hour and status, with the counts of hours long past kept between
 * requests. Counting a day of instances is one index range over all of that day's rows: at a
 * million instances a day, half a second and more of PostgreSQL's time on every overview request
 * (docs/benchmarks.md, "A month of history"). The rows of an hour change little once the hour is
 * over and its runs and retries have ended, so:
 *
 * <ul>
 *   <li>the current hour and the one before it ({@link #LIVE_HOURS}) are counted on every request;
 *   <li>an earlier hour is counted once and kept, and counted again when its counts are older than
 *       {@link #MAX_AGE}; at most one such hour is counted again per request, the stalest, so a
 *       request costs at most the live hours and one more (after the first, which counts every hour
 *       not kept yet, one statement each).
 * </ul>
 *
 * <p>So an earlier hour's counts may be up to {@link #MAX_AGE} old, or older when requests are rare
 * (a late retry that ends DEAD shows in its hour a little later). Kept hours are bounded: those
 * more than {@code maxHours} back are dropped. Thread-safe: two requests may count the same hour at
 * once; the later write wins, and both are counts of the same rows.
 *
 * <p>{@link #warmUp} counts the earlier hours ahead of the first request (the API does it when it
 * starts), so that the first operator to open the console after a start does not wait for a day of
 * counts: 12.5 s with cold caches at a million instances a day.
 */
final class HourCounts {
  /** Hours counted on every request: the current one and the one before it. */
  static final int LIVE_HOURS = 2;

  /** How long an earlier hour's counts are used before they are counted again. */
  static final Duration MAX_AGE = Duration.ofMinutes(5);

  private static final Duration HOUR = Duration.ofHours(1);

  /** Counts the instances scheduled in {@code [from, to)} per hour and status. */
  @FunctionalInterface
  interface Counter {
    List<HourCount> count(Instant from, Instant to);
  }

  /** One earlier hour's counts and when they were made ({@code nanoTime}). */
  private record Kept(List<HourCount> counts, long countedAtNanos) {}

  private final Counter counter;
  private final int maxHours;
  private final LongSupplier nanoTime;
  private final Map<Instant, Kept> kept = new ConcurrentHashMap<>();

  /**
   * @param maxHours the most hours a request asks for; hours further back are not kept
   * @param nanoTime the monotonic clock the counts' ages are measured on
   */
  HourCounts(Counter counter, int maxHours, LongSupplier nanoTime) {
    this.counter = Objects.requireNonNull(counter, "counter");
    this.maxHours = maxHours;
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /**
   * The counts of the whole hours in {@code [from, to)}, oldest first, as {@link
   * dev.carillon.store.OverviewQueries#perHour} returns them.
   *
   * @param from the first hour's start, a whole hour
   * @param to the end, a whole hour after {@code now}
   * @param now the present: the hour it falls in and the one before are counted now
   */
  List<HourCount> perHour(Instant from, Instant to, Instant now) {
    Instant liveFrom = liveFrom(now);
    if (!liveFrom.isAfter(from)) {
      return counter.count(from, to);
    }
    forget(now);
    long nowNanos = nanoTime.getAsLong();
    List<Instant> missing = new ArrayList<>();
    Instant stalest = null;
    long stalestAt = Long.MAX_VALUE;
    for (Instant h = from; h.isBefore(liveFrom); h = h.plus(HOUR)) {
      Kept k = kept.get(h);
      if (k == null) {
        missing.add(h);
      } else if (nowNanos - k.countedAtNanos() > MAX_AGE.toNanos()
          && k.countedAtNanos() < stalestAt) {
        stalest = h;
        stalestAt = k.countedAtNanos();
      }
    }
    // One statement per hour, so that each is bounded by an hour's rows whatever the window: at
    // first every earlier hour is missing, and a day of them in one statement took 12.5 s with
    // cold caches at a million instances a day, close to the statement timeout.
    for (Instant h : missing) {
      keep(h, nowNanos);
    }
    if (missing.isEmpty() && stalest != null) {
      keep(stalest, nowNanos);
    }
    List<HourCount> out = new ArrayList<>();
    for (Instant h = from; h.isBefore(liveFrom); h = h.plus(HOUR)) {
      Kept k = kept.get(h);
      // Dropped meanwhile by a request in a later hour (not for hours a request may still ask
      // for, but cheap to be safe about): counted now.
      out.addAll(k != null ? k.counts() : counter.count(h, h.plus(HOUR)));
    }
    out.addAll(counter.count(liveFrom, to));
    return out;
  }

  /**
   * Counts and keeps every earlier hour of {@code [from, now)} not kept yet (not the live hours),
   * one statement each, as the first request would.
   *
   * @param from the first hour's start, a whole hour
   * @return the hours counted
   */
  int warmUp(Instant from, Instant now) {
    Instant liveFrom = liveFrom(now);
    long nowNanos = nanoTime.getAsLong();
    int counted = 0;
    for (Instant h = from; h.isBefore(liveFrom); h = h.plus(HOUR)) {
      if (!kept.containsKey(h)) {
        keep(h, nowNanos);
        counted++;
      }
    }
    return counted;
  }

  /** The start of the first live hour: the one before the hour {@code now} falls in. */
  private static Instant liveFrom(Instant now) {
    return now.truncatedTo(ChronoUnit.HOURS).minus(HOUR.multipliedBy(LIVE_HOURS - 1));
  }

  /** How many earlier hours are kept; for tests. */
  int keptHours() {
    return kept.size();
  }

  private void keep(Instant hour, long nowNanos) {
    List<HourCount> counts = new ArrayList<>(counter.count(hour, hour.plus(HOUR)));
    counts.sort(Comparator.comparing(c -> c.status().name()));
    kept.put(hour, new Kept(List.copyOf(counts), nowNanos));
  }

  private void forget(Instant now) {
    Instant oldest = now.truncatedTo(ChronoUnit.HOURS).minus(HOUR.multipliedBy(maxHours + 1L));
    kept.keySet().removeIf(h -> h.isBefore(oldest));
  }
}
