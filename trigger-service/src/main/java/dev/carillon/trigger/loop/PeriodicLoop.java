package dev.carillon.trigger.loop;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one step repeatedly on a daemon thread while started: the leader-only loops (dependency
 * releaser, event consumer, condition poller) use it, so that each of them only has to expose its
 * step ({@code ...Once()}), which tests call directly. A step that throws is logged and retried on
 * the next round; nothing half-done was committed by it.
 *
 * <p>Start and stop are compare-and-set guarded and idempotent.
 */
public final class PeriodicLoop {
  private static final Logger log = LoggerFactory.getLogger(PeriodicLoop.class);

  /** One round of work. */
  @FunctionalInterface
  public interface Step {
    /**
     * Runs one round.
     *
     * @throws InterruptedException when the loop is being stopped
     */
    void run() throws InterruptedException;
  }

  private final String name;
  private final Duration pause;
  private final Step step;
  private final Runnable onStart;
  private final AtomicReference<Thread> thread = new AtomicReference<>();
  private volatile Thread last;

  /**
   * @param name the thread name and log label
   * @param pause the wait between rounds (a step may itself block, e.g. in a Kafka poll)
   * @param onStart runs on the caller's thread before the first round of each start (e.g. resync)
   * @param step the round
   */
  public PeriodicLoop(String name, Duration pause, Runnable onStart, Step step) {
    this.name = Objects.requireNonNull(name, "name");
    this.pause = Objects.requireNonNull(pause, "pause");
    this.onStart = Objects.requireNonNull(onStart, "onStart");
    this.step = Objects.requireNonNull(step, "step");
  }

  /** Starts the thread; does nothing if it runs. */
  public void start() {
    Thread t = new Thread(this::run, name);
    t.setDaemon(true);
    if (thread.compareAndSet(null, t)) {
      last = t;
      onStart.run();
      t.start();
      log.info("{} started (every {})", name, pause);
    }
  }

  /** Interrupts the thread and forgets it at once; does nothing if not running. */
  public void stop() {
    Thread t = thread.getAndSet(null);
    if (t != null) {
      t.interrupt();
      log.info("{} stopped", name);
    }
  }

  /**
   * Shutdown: {@link #stop()}, then waits up to {@code timeout} for a round in progress to end, so
   * that the resources it uses (the database pool) are not closed under it.
   */
  public void stopAndWait(Duration timeout) {
    stop();
    Thread t = last;
    if (t != null && t != Thread.currentThread()) {
      try {
        t.join(timeout.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Whether the thread runs. */
  public boolean isRunning() {
    return thread.get() != null;
  }

  private void run() {
    Thread me = Thread.currentThread();
    while (thread.get() == me && !me.isInterrupted()) {
      try {
        step.run();
        // The pause is the loop's polling interval; leadership loss interrupts it at once.
        Thread.sleep(pause.toMillis());
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        if (thread.get() != me) {
          // Stopped during the round (leadership lost, shutdown): the failure is the stop's.
          log.info("{}: round ended by the stop: {}", name, e.toString());
          return;
        }
        log.error("{}: round failed; retrying", name, e);
        try {
          // Same pause after a failure, so a down database does not become a hot loop.
          Thread.sleep(pause.toMillis());
        } catch (InterruptedException ie) {
          return;
        }
      }
    }
  }
}
