package dev.carillon.worker.run;

import dev.carillon.logging.InstanceMdc;
import dev.carillon.model.lease.TimeoutAdvice;
import dev.carillon.store.RunEvidenceStore;
import dev.carillon.worker.DaemonThreads;
import dev.carillon.worker.WorkerMetrics;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns, once per task version and worker process, when a task's timeout is below the P99 of its
 * recent successful runs ({@link TimeoutAdvice}): about one run in a hundred will then be killed at
 * its deadline, time out and run again. The line names the P99, the sample size and the timeout P99
 * × 1.5 suggests ({@code schedctl suggest-timeout} prints the same).
 *
 * <p>The evidence is read on the advisor's own thread, never on the path of a claim; a read that
 * fails is forgotten, and the next run of that version asks again. At most {@link #MAX_WAITING}
 * checks wait; beyond that a check is dropped and asked again by a later run.
 *
 * <p>The reads are bounded: at most {@link #READS_PER_SECOND} a second (a check beyond that is put
 * off to a later run of its version), and at most {@link #MAX_REMEMBERED} checked versions are
 * remembered (beyond that they are forgotten and checked again). Why: a version is checked once per
 * worker process, which costs nothing noticeable for a task that runs many times, but with many
 * tasks each run once or a few times a day (a million daily schedules, or the bench's burst of
 * one-shot tasks) every run was a read of up to a thousand rows, and the advisor's thread was the
 * largest single user of the worker's CPU in the 100,000 burst (docs/benchmarks.md, "Item 1: where
 * the CPU goes"), and the remembered versions grew with the number of tasks.
 *
 * <p>Thread-safe.
 */
public final class TimeoutAdvisor implements AutoCloseable {
  /** Checks that may wait for the advisor's thread. */
  static final int MAX_WAITING = 1_000;

  /** The most evidence reads a second. */
  static final int READS_PER_SECOND = 10;

  /** The most checked versions remembered. */
  static final int MAX_REMEMBERED = 100_000;

  private static final Logger log = LoggerFactory.getLogger(TimeoutAdvisor.class);

  /** Where the advice comes from: the task's recent successes ({@link RunEvidenceStore#advice}). */
  @FunctionalInterface
  public interface Evidence {
    /** The advice from the task's latest {@code window} successes, or empty without enough. */
    Optional<TimeoutAdvice> advice(String taskId, int window);
  }

  private record Version(String taskId, long version) {}

  private final Evidence evidence;
  private final int window;
  private final WorkerMetrics metrics;
  private final Set<Version> checked = ConcurrentHashMap.newKeySet();
  private final ThreadPoolExecutor executor;
  private final int readsPerSecond;
  private final int maxRemembered;
  private final LongSupplier nanoTime;
  private final AtomicBoolean deferralSaid = new AtomicBoolean();

  // The token bucket of reads: up to a second's worth, refilled as time passes.
  private double tokens;
  private long refilledAt;

  /**
   * @param evidence where the durations of recent successes are read
   * @param window how many recent successes count
   * @param metrics counts each warning and each check put off
   * @param threadName the advisor thread's name
   */
  public TimeoutAdvisor(Evidence evidence, int window, WorkerMetrics metrics, String threadName) {
    this(evidence, window, metrics, threadName, READS_PER_SECOND, MAX_REMEMBERED, System::nanoTime);
  }

  TimeoutAdvisor(
      Evidence evidence,
      int window,
      WorkerMetrics metrics,
      String threadName,
      int readsPerSecond,
      int maxRemembered,
      LongSupplier nanoTime) {
    this.evidence = evidence;
    this.window = window;
    this.metrics = metrics;
    this.readsPerSecond = readsPerSecond;
    this.maxRemembered = maxRemembered;
    this.nanoTime = nanoTime;
    this.tokens = readsPerSecond;
    this.refilledAt = nanoTime.getAsLong();
    this.executor =
        new ThreadPoolExecutor(
            1,
            1,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(MAX_WAITING),
            DaemonThreads.named(threadName));
    executor.allowCoreThreadTimeOut(true);
  }

  /** Checks {@code timeout} of {@code taskId} at {@code version}, unless already checked. */
  void check(String taskId, long version, Duration timeout) {
    Version v = new Version(taskId, version);
    if (checked.contains(v)) {
      return;
    }
    if (checked.size() >= maxRemembered) {
      // Forgetting them all is as good as an LRU here: a forgotten version costs one more read,
      // within the rate below.
      log.info(
          "Timeout advice: forgot the {} task versions checked so far (at most {} are"
              + " remembered); each is checked again on its next run",
          checked.size(),
          maxRemembered);
      checked.clear();
    }
    if (!takeRead()) {
      metrics.timeoutChecksDeferred.increment();
      if (deferralSaid.compareAndSet(false, true)) {
        log.info(
            "Timeout advice: more than {} task versions a second to check (first put off: task"
                + " {}); checks beyond that wait for a later run of their version (counted in"
                + " carillon_worker_timeout_advice_deferred_total, said once)",
            readsPerSecond,
            taskId);
      }
      return;
    }
    if (!checked.add(v)) {
      return;
    }
    try {
      executor.execute(() -> evaluate(v, timeout));
    } catch (RejectedExecutionException e) {
      checked.remove(v);
    }
  }

  private synchronized boolean takeRead() {
    long now = nanoTime.getAsLong();
    tokens = Math.min(readsPerSecond, tokens + (now - refilledAt) * readsPerSecond / 1e9);
    refilledAt = now;
    if (tokens < 1) {
      return false;
    }
    tokens -= 1;
    return true;
  }

  private void evaluate(Version v, Duration timeout) {
    Optional<TimeoutAdvice> advice;
    try {
      advice = evidence.advice(v.taskId(), window);
    } catch (RuntimeException e) {
      checked.remove(v);
      log.debug("Could not read the run durations of task {}: {}", v.taskId(), e.toString());
      return;
    }
    if (advice.isPresent() && advice.get().isAbove(timeout)) {
      TimeoutAdvice a = advice.get();
      metrics.timeoutBelowP99(v.taskId());
      try (InstanceMdc mdc = InstanceMdc.task(v.taskId(), null)) {
        log.warn(
            "Task {} (version {}) has a timeout of {}, below the P99 {} of its last {} successful"
                + " runs: about one run in a hundred will be stopped at its deadline and run"
                + " again. P99 x {} suggests a timeout of {} (schedctl suggest-timeout {})",
            v.taskId(),
            v.version(),
            timeout,
            a.p99(),
            a.sampleSize(),
            TimeoutAdvice.FACTOR,
            a.suggested(),
            v.taskId());
      }
    }
  }

  /** Stops the advisor's thread; checks still waiting are dropped. */
  @Override
  public void close() {
    executor.shutdownNow();
  }
}
