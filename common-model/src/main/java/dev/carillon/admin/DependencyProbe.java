package dev.carillon.admin;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks one dependency (PostgreSQL, say) whether it answers, every {@code every}, on a thread of its
 * own, so that a readiness request never waits for it: {@link #status()} only reads the last
 * answer. A check still waiting after {@code timeout} counts as DOWN at once ("no answer within
 * 2s"), whatever bounds the check itself; the next check starts only after it returned. Changes are
 * logged once each way.
 *
 * <p>Readiness, not liveness: a service whose dependency is down is alive (its loops keep retrying
 * and recover by themselves when it returns) but cannot do its job, so an orchestrator should not
 * restart it, only stop sending it work.
 *
 * <p>Thread-safe. {@link #close()} stops the checks.
 */
public final class DependencyProbe implements AutoCloseable {
  /** One check; returns normally when the dependency answered. */
  @FunctionalInterface
  public interface Check {
    void run() throws Exception;
  }

  /**
   * The last answer.
   *
   * @param up whether the dependency answered its last check
   * @param detail {@code UP}, or {@code DOWN: why}
   */
  public record Status(boolean up, String detail) {
    public Status {
      Objects.requireNonNull(detail, "detail");
    }
  }

  /** Pause between checks unless told otherwise. */
  public static final Duration DEFAULT_EVERY = Duration.ofSeconds(2);

  /** How long a check may take before the dependency counts as DOWN, unless told otherwise. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

  private static final Logger log = LoggerFactory.getLogger(DependencyProbe.class);
  private static final long IDLE = -1;

  private final String name;
  private final Check check;
  private final Duration timeout;
  private final LongSupplier nanos;
  private final ScheduledExecutorService executor;
  private final AtomicReference<Status> last;
  private final AtomicLong checkStarted = new AtomicLong(IDLE);

  /**
   * Starts checking at once.
   *
   * @param name the dependency's name in health reports and logs, e.g. {@code postgres}
   * @param every pause between the end of one check and the start of the next
   * @param timeout how long a check may run before the dependency counts as DOWN
   */
  public DependencyProbe(String name, Check check, Duration every, Duration timeout) {
    this(name, check, every, timeout, System::nanoTime);
  }

  DependencyProbe(String name, Check check, Duration every, Duration timeout, LongSupplier nanos) {
    this.name = Objects.requireNonNull(name, "name");
    this.check = Objects.requireNonNull(check, "check");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.nanos = nanos;
    // Unknown until the first check returns; a service that just started is not ready yet.
    this.last = new AtomicReference<>(new Status(false, "DOWN: not checked yet"));
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "probe-" + name);
              t.setDaemon(true);
              return t;
            });
    executor.scheduleWithFixedDelay(this::checkOnce, 0, every.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The dependency's name. */
  public String name() {
    return name;
  }

  /** The last answer, or DOWN when the check in progress has run longer than the timeout. */
  public Status status() {
    long started = checkStarted.get();
    if (started != IDLE && nanos.getAsLong() - started > timeout.toNanos()) {
      return new Status(false, "DOWN: no answer within " + timeout.toMillis() + " ms");
    }
    return last.get();
  }

  /** Whether the last answer was UP (and no check is overdue). */
  public boolean isUp() {
    return status().up();
  }

  /** Runs one check now, on the calling thread; the scheduled checks call it. */
  void checkOnce() {
    checkStarted.set(nanos.getAsLong());
    Status now;
    try {
      check.run();
      now = new Status(true, "UP");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      now = new Status(false, "DOWN: " + describe(e));
    } finally {
      checkStarted.set(IDLE);
    }
    Status before = last.getAndSet(now);
    if (before.up() != now.up()) {
      if (now.up()) {
        log.info("{} answers again", name);
      } else {
        log.warn("{} does not answer: {}", name, now.detail());
      }
    }
  }

  /** The innermost cause's message: "Connection refused" rather than a wrapper's prose. */
  private static String describe(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage();
    return root.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m.strip());
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
