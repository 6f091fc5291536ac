package dev.carillon.loop;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one step repeatedly on its own daemon thread while started, waiting before each round as its
 * {@link Pace} says. The services' loops (the trigger's tick, dependency, event and condition loops
 * and its dispatcher, the retry scans and heartbeat line, the worker's lease heartbeat and end
 * writer) all use it, so each of them only exposes its step ({@code ...Once()}), which tests call
 * directly. Kafka consumer loops are not built on it: a consumer belongs to the thread that polls
 * it from subscribe to close, and {@code wakeup()} is how they stop.
 *
 * <p><b>Errors:</b> a step that throws is logged and the loop goes on with the next round, after
 * the pace's {@code afterFailure} wait; nothing half-done may be left by a step that throws. The
 * first failure of a streak is logged with its stack trace, then one line at the 2nd, 4th, 8th...
 * failure in a row (a loop that fails every 50 ms must not flood the log), and the first success
 * after a streak says how many rounds failed.
 *
 * <p><b>Stop:</b> with {@link StopMode#INTERRUPT} {@link #stop} interrupts the thread, ending a
 * wait or a blocking step at once (leadership lost). With {@link StopMode#FINISH_ROUND} a round in
 * progress finishes undisturbed (a statement in flight completes its transaction) and only the wait
 * is cut short. Either way the thread ends before its next round; {@link #stopAndWait} also waits
 * for it. The loop holds no queue: one thread runs the rounds one after another, and a slow round
 * delays the next instead of piling rounds up.
 *
 * <p>Start and stop are compare-and-set guarded and idempotent; a stopped loop can be started again
 * on a new thread, whose first round may overlap the last round of the old one if that is still
 * ending (steps that must never overlap take a lock). Thread-safe.
 */
public final class PeriodicLoop {
  private static final Logger log = LoggerFactory.getLogger(PeriodicLoop.class);

  /** How {@link #stop} treats a round in progress. */
  public enum StopMode {
    /** Interrupt the thread: a blocking step ends at once. */
    INTERRUPT,
    /** Let a round in progress finish; only the wait before the next one is cut short. */
    FINISH_ROUND
  }

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
  private final Pace pace;
  private final StopMode stopMode;
  private final Runnable onStart;
  private final Step step;
  private final AtomicReference<Thread> thread = new AtomicReference<>();
  private final Object wakeUp = new Object();
  private volatile Thread last;

  /**
   * @param name the thread name and log label
   * @param pace the wait before each round (a step may itself block, e.g. in a queue poll)
   * @param stopMode what a stop does to a round in progress
   * @param onStart runs on the caller's thread before the first round of each start (e.g. resync)
   * @param step the round
   */
  public PeriodicLoop(String name, Pace pace, StopMode stopMode, Runnable onStart, Step step) {
    this.name = Objects.requireNonNull(name, "name");
    this.pace = Objects.requireNonNull(pace, "pace");
    this.stopMode = Objects.requireNonNull(stopMode, "stopMode");
    this.onStart = Objects.requireNonNull(onStart, "onStart");
    this.step = Objects.requireNonNull(step, "step");
  }

  /** A loop with nothing to do on start. */
  public PeriodicLoop(String name, Pace pace, StopMode stopMode, Step step) {
    this(name, pace, stopMode, () -> {}, step);
  }

  /**
   * Starts the thread, after running {@code onStart} on the caller's thread.
   *
   * @return false, doing nothing, when the loop already runs
   */
  public boolean start() {
    Thread t = new Thread(this::run, name);
    t.setDaemon(true);
    if (!thread.compareAndSet(null, t)) {
      return false;
    }
    last = t;
    onStart.run();
    t.start();
    log.info("{} started ({})", name, pace);
    return true;
  }

  /** Stops the loop (see the class comment) and forgets its thread at once; idempotent. */
  public void stop() {
    Thread t = thread.getAndSet(null);
    if (t == null) {
      return;
    }
    synchronized (wakeUp) {
      wakeUp.notifyAll();
    }
    if (stopMode == StopMode.INTERRUPT) {
      t.interrupt();
    }
    log.info("{} stopped", name);
  }

  /**
   * Shutdown: {@link #stop()}, then waits up to {@code timeout} for a round in progress to end, so
   * that the resources it uses (the database pool) are not closed under it.
   *
   * @return whether the thread ended in time (true when none ran)
   */
  public boolean stopAndWait(Duration timeout) {
    stop();
    Thread t = last;
    if (t == null || t == Thread.currentThread()) {
      return true;
    }
    try {
      t.join(Math.max(1, timeout.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      log.warn("{}: a round did not end within {} of the stop", name, timeout);
      return false;
    }
    return true;
  }

  /** Whether the loop is started and not stopped. */
  public boolean isRunning() {
    return thread.get() != null;
  }

  private void run() {
    Thread me = Thread.currentThread();
    boolean first = true;
    int failures = 0;
    while (current(me)) {
      try {
        if (!await(me, pace.before(first, failures > 0))) {
          return;
        }
        first = false;
        step.run();
        if (failures > 0) {
          log.info("{}: rounds succeed again after {} failed", name, failures);
          failures = 0;
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        if (!current(me)) {
          // Stopped during the round (leadership lost, shutdown): the failure is the stop's.
          log.info("{}: round ended by the stop: {}", name, e.toString());
          return;
        }
        failures++;
        if (failures == 1) {
          log.error("{}: round failed; trying again", name, e);
        } else if (Integer.bitCount(failures) == 1) {
          log.warn(
              "{}: round failed again ({} in a row); trying again: {}",
              name,
              failures,
              e.toString());
        }
      }
    }
  }

  private boolean current(Thread me) {
    return thread.get() == me && !me.isInterrupted();
  }

  /** Waits {@code wait} unless stopped first; whether the loop should go on. */
  private boolean await(Thread me, Duration wait) throws InterruptedException {
    long end = System.nanoTime() + wait.toNanos();
    synchronized (wakeUp) {
      while (current(me)) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          return true;
        }
        wakeUp.wait(Math.max(1, left / 1_000_000));
      }
    }
    return false;
  }
}
