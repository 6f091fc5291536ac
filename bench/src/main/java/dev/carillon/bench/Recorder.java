package dev.carillon.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the jobs of one run did: every handler calls {@link #started} once per execution, from any
 * thread. The map is keyed by fire, so a second execution of the same fire is a duplicate.
 */
public final class Recorder {
  /** Executions of one fire: how many, and when the first one started. */
  public static final class Starts {
    private final AtomicInteger count = new AtomicInteger();
    private volatile Instant first;

    public int count() {
      return count.get();
    }

    public Instant first() {
      return first;
    }
  }

  private final ConcurrentHashMap<FireKey, Starts> fires = new ConcurrentHashMap<>();
  private final LongAdder executions = new LongAdder();
  private volatile CountDownLatch distinctTarget = new CountDownLatch(0);

  /**
   * Records that the job {@code jobId}, scheduled for {@code scheduled}, started at {@code start}.
   */
  public void started(String jobId, Instant scheduled, Instant start) {
    executions.increment();
    Starts s = fires.computeIfAbsent(FireKey.of(jobId, scheduled), k -> new Starts());
    if (s.count.incrementAndGet() == 1) {
      s.first = start;
      distinctTarget.countDown();
    }
  }

  /** Arms {@link #awaitDistinct}: it returns once {@code n} more distinct fires were recorded. */
  public void expectDistinct(long n) {
    distinctTarget = new CountDownLatch((int) Math.min(Integer.MAX_VALUE, n));
  }

  /** Waits until the fires armed by {@link #expectDistinct} were seen; false on timeout. */
  public boolean awaitDistinct(Duration timeout) throws InterruptedException {
    return distinctTarget.await(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
  }

  public long executions() {
    return executions.sum();
  }

  public Map<FireKey, Starts> fires() {
    return Map.copyOf(fires);
  }
}
