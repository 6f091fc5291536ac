package dev.carillon.trigger.clock;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trigger's clock: this host's clock moved by its measured offset to PostgreSQL's clock, so
 * that fire times are judged on the clock every other decision uses (leases, due retries, and the
 * claim that refuses to start an instance before its {@code scheduled_at}). A trigger host whose
 * clock runs fast therefore creates no window early, and one whose clock runs slow none late.
 *
 * <p>{@link #sync()} measures the offset with one query and is called by the tick loop at the start
 * of every tick; {@link #instant()} applies the last measured offset and does no IO. The
 * measurement counts the database's reading as taken at the end of the round trip, so the corrected
 * time is never ahead of the database's (at most one round trip behind): a window is never created
 * before its fire time by the database's clock.
 *
 * <p>An offset beyond {@code maxSkew} means this host's time service is broken; ticking goes on, on
 * the database's time, but the state change is logged (WARN when it goes beyond, INFO when it comes
 * back) and the offset is the gauge {@code carillon.trigger.clock.skew} (seconds, the database's
 * clock minus this host's).
 *
 * <p>Thread-safe.
 */
public final class DatabaseClock extends Clock {
  private static final Logger log = LoggerFactory.getLogger(DatabaseClock.class);

  private final Clock local;
  private final Supplier<Instant> databaseTime;
  private final Duration maxSkew;
  private final AtomicLong offsetNanos;
  private final AtomicReference<Boolean> beyond;
  private final ZoneId zone;

  /**
   * @param local this host's clock
   * @param databaseTime reads PostgreSQL's clock (one round trip)
   * @param maxSkew the offset beyond which the host's clock counts as broken
   */
  public DatabaseClock(Clock local, Supplier<Instant> databaseTime, Duration maxSkew) {
    this(
        local,
        databaseTime,
        maxSkew,
        new AtomicLong(),
        new AtomicReference<>(false),
        ZoneOffset.UTC);
  }

  private DatabaseClock(
      Clock local,
      Supplier<Instant> databaseTime,
      Duration maxSkew,
      AtomicLong offsetNanos,
      AtomicReference<Boolean> beyond,
      ZoneId zone) {
    this.local = Objects.requireNonNull(local, "local");
    this.databaseTime = Objects.requireNonNull(databaseTime, "databaseTime");
    this.maxSkew = Objects.requireNonNull(maxSkew, "maxSkew");
    this.offsetNanos = offsetNanos;
    this.beyond = beyond;
    this.zone = zone;
  }

  /**
   * Measures the offset to the database's clock now and returns the database's time.
   *
   * @throws RuntimeException (typically {@code DataAccessException}) when the database cannot be
   *     asked; the last offset stays in force
   */
  public Instant sync() {
    Instant db = databaseTime.get();
    Instant after = local.instant();
    Duration offset = Duration.between(after, db);
    offsetNanos.set(offset.toNanos());
    boolean isBeyond = offset.abs().compareTo(maxSkew) > 0;
    if (beyond.getAndSet(isBeyond) != isBeyond) {
      if (isBeyond) {
        log.warn(
            "This host's clock is {} ms {} PostgreSQL's, beyond trigger.max-clock-skew ({}); the"
                + " trigger ticks on the database's time. Fix the host's time service",
            offset.abs().toMillis(),
            offset.isNegative() ? "ahead of" : "behind",
            maxSkew);
      } else {
        log.info(
            "This host's clock is within {} of PostgreSQL's again (offset {} ms)",
            maxSkew,
            offset.toMillis());
      }
    }
    return after.plus(offset);
  }

  /** The last measured offset: the database's clock minus this host's. */
  public Duration offset() {
    return Duration.ofNanos(offsetNanos.get());
  }

  /** Whether the last measured offset was beyond the bound. */
  public boolean skewed() {
    return beyond.get();
  }

  @Override
  public Instant instant() {
    return local.instant().plusNanos(offsetNanos.get());
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  /** A view in {@code other} sharing this clock's offset. */
  @Override
  public Clock withZone(ZoneId other) {
    return other.equals(zone)
        ? this
        : new DatabaseClock(local, databaseTime, maxSkew, offsetNanos, beyond, other);
  }
}
