package dev.carillon.worker;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * When one of the worker's own loops (the consumer's poll loop, the lease heartbeat) last went
 * round, for {@code /health/live}: a worker is live while its loops make progress, whatever
 * PostgreSQL does (a failed claim or heartbeat is a round too; a call stuck for good is not).
 * Thread-safe.
 */
public final class LoopProgress {
  private final String name;
  private final LongSupplier nanoTime;
  private volatile long lastNanos;

  /**
   * @param name the loop's name in health reports
   * @param nanoTime the monotonic clock, {@code System::nanoTime} outside tests
   */
  public LoopProgress(String name, LongSupplier nanoTime) {
    this.name = name;
    this.nanoTime = nanoTime;
    this.lastNanos = nanoTime.getAsLong();
  }

  /** The loop went round. */
  public void touch() {
    lastNanos = nanoTime.getAsLong();
  }

  /** How long ago the loop last went round. */
  public Duration sinceLast() {
    return Duration.ofNanos(Math.max(0, nanoTime.getAsLong() - lastNanos));
  }

  /** Whether the loop has not gone round for longer than {@code limit}. */
  public boolean stalled(Duration limit) {
    return sinceLast().compareTo(limit) > 0;
  }

  /** The loop's name. */
  public String name() {
    return name;
  }
}
