package dev.carillon.devstack;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle every {@link ServerNode} shares: one lock per node that serializes start, stop and
 * close (and anything a node must keep apart from them), a state that only moves stopped → running
 * ⇄ stopped → closed, and one log line per change with its duration. Subclasses only say how their
 * server starts and stops.
 */
abstract class AbstractServerNode implements ServerNode {
  private static final Logger log = LoggerFactory.getLogger(AbstractServerNode.class);

  private enum State {
    STOPPED,
    RUNNING,
    CLOSED
  }

  /** Held during every change of state; subclasses hold it for operations that must not overlap. */
  final Object lock = new Object();

  private volatile State state = State.STOPPED;

  /** Starts the server; called with {@link #lock} held, only when it is stopped. */
  abstract void startServer();

  /** Stops the server, keeping its data; called with {@link #lock} held, only when it runs. */
  abstract void stopServer();

  /** Frees what the server holds beyond a stop; called once, with {@link #lock} held, on close. */
  void release() {}

  @Override
  public final void start() {
    synchronized (lock) {
      if (state == State.CLOSED) {
        throw new IllegalStateException(name() + " on port " + port() + " is closed");
      }
      if (state == State.RUNNING) {
        return;
      }
      long t0 = System.nanoTime();
      startServer();
      state = State.RUNNING;
      log.info("{} started on port {} in {} ms", name(), port(), millisSince(t0));
    }
  }

  @Override
  public final void stop() {
    synchronized (lock) {
      if (state != State.RUNNING) {
        return;
      }
      long t0 = System.nanoTime();
      // Stopped even if stopping fails: a half-stopped server must not be stopped again, and a
      // start afterwards tells whether it is usable.
      state = State.STOPPED;
      stopServer();
      log.info("{} stopped in {} ms", name(), millisSince(t0));
    }
  }

  /**
   * Ends the running server by {@code how} instead of a clean {@link #stopServer()} (a kill -9,
   * say); afterwards it counts as stopped, and {@link #start()} brings it back.
   *
   * @throws IllegalStateException if it is not running
   */
  final void stopAbruptly(String what, Runnable how) {
    synchronized (lock) {
      if (state != State.RUNNING) {
        throw new IllegalStateException(name() + " on port " + port() + " is not running");
      }
      long t0 = System.nanoTime();
      state = State.STOPPED;
      how.run();
      log.info("{} {} in {} ms", name(), what, millisSince(t0));
    }
  }

  /**
   * Runs {@code action} while the server runs, with the lifecycle lock held.
   *
   * @throws IllegalStateException if it is not running
   */
  final void whileRunning(Runnable action) {
    synchronized (lock) {
      if (state != State.RUNNING) {
        throw new IllegalStateException(name() + " on port " + port() + " is not running");
      }
      action.run();
    }
  }

  @Override
  public final void restart() {
    synchronized (lock) {
      stop();
      start();
    }
  }

  @Override
  public final boolean isRunning() {
    return state == State.RUNNING;
  }

  @Override
  public final void close() {
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      try {
        stop();
      } finally {
        state = State.CLOSED;
        release();
      }
    }
  }

  private static long millisSince(long t0) {
    return Duration.ofNanos(System.nanoTime() - t0).toMillis();
  }
}
