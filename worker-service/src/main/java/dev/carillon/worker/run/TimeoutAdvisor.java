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
 * <p>Thread-safe.
 */
public final class TimeoutAdvisor implements AutoCloseable {
  /** Checks that may wait for the advisor's thread. */
  static final int MAX_WAITING = 1_000;

  private static final Logger log = LoggerFactory.getLogger(TimeoutAdvisor.class);

  private record Version(String taskId, long version) {}

  private final RunEvidenceStore evidence;
  private final int window;
  private final WorkerMetrics metrics;
  private final Set<Version> checked = ConcurrentHashMap.newKeySet();
  private final ThreadPoolExecutor executor;

  /**
   * @param evidence where the durations of recent successes are read
   * @param window how many recent successes count
   * @param metrics counts each warning
   * @param threadName the advisor thread's name
   */
  public TimeoutAdvisor(
      RunEvidenceStore evidence, int window, WorkerMetrics metrics, String threadName) {
    this.evidence = evidence;
    this.window = window;
    this.metrics = metrics;
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
    if (!checked.add(v)) {
      return;
    }
    try {
      executor.execute(() -> evaluate(v, timeout));
    } catch (RejectedExecutionException e) {
      checked.remove(v);
    }
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
