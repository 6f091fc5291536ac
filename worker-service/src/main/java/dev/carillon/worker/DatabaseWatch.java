package dev.carillon.worker;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Whether this worker reaches PostgreSQL, as its own statements find out: claims, lease renewals
 * and presence refreshes report each success and failure here. The consumer reads it to give its
 * partitions back while the database cannot be reached (see {@code InstanceConsumer}): a worker cut
 * off from the database cannot claim, and the records on its partitions would wait for it.
 * Thread-safe.
 */
public final class DatabaseWatch {
  private static final long NONE = Long.MIN_VALUE;

  private final LongSupplier nanoTime;
  private final AtomicLong failingSince = new AtomicLong(NONE);

  /**
   * @param nanoTime the monotonic clock, {@code System::nanoTime} outside tests
   */
  public DatabaseWatch(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /** A statement succeeded: the database answers. */
  public void succeeded() {
    failingSince.set(NONE);
  }

  /** A statement failed (not a lost compare-and-set: the call itself). */
  public void failed() {
    failingSince.compareAndSet(NONE, nanoTime.getAsLong());
  }

  /** How long every statement has failed, since the first failure after the last success. */
  public Duration failingFor() {
    long since = failingSince.get();
    return since == NONE ? Duration.ZERO : Duration.ofNanos(nanoTime.getAsLong() - since);
  }
}
