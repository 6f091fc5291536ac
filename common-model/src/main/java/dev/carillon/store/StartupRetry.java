package dev.carillon.store;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A service's first contact with PostgreSQL, tried again while the server cannot be reached, for up
 * to a limit. A service started while PostgreSQL restarts, recovers from a crash or is stopped for
 * a moment (a rollout of both at once, a node reboot) waits for it instead of exiting, which would
 * leave it down until an orchestrator restarts it, and leave no standby meanwhile. Only an
 * unreachable server is waited for: a wrong password, a missing database or a schema without this
 * build's migrations fails at once.
 */
public final class StartupRetry {
  /** How long a service waits for PostgreSQL at start before it exits. */
  public static final Duration DEFAULT_LIMIT = Duration.ofMinutes(2);

  private static final Duration FIRST_PAUSE = Duration.ofSeconds(1);
  private static final Duration MAX_PAUSE = Duration.ofSeconds(5);
  private static final Logger log = LoggerFactory.getLogger(StartupRetry.class);

  private final Duration limit;
  private final AtomicInteger failures = new AtomicInteger();

  /**
   * @param limit how long to keep trying, from the first attempt; zero tries once
   */
  public StartupRetry(Duration limit) {
    Objects.requireNonNull(limit, "limit");
    if (limit.isNegative()) {
      throw new IllegalArgumentException("limit must not be negative, was " + limit);
    }
    this.limit = limit;
  }

  /**
   * Runs {@code attempt} until it succeeds, fails for a reason other than an unreachable server, or
   * {@link #limit} has passed; each failed attempt is logged once with its reason.
   *
   * @param target what is reached, for the log (a masked URL: never a password)
   * @throws RuntimeException the last attempt's failure
   * @throws IllegalStateException when interrupted while waiting
   */
  public <T> T run(String target, Supplier<T> attempt) {
    long start = System.nanoTime();
    Duration pause = FIRST_PAUSE;
    while (true) {
      try {
        return attempt.get();
      } catch (RuntimeException e) {
        Duration left = limit.minusNanos(System.nanoTime() - start);
        if (!unreachable(e) || left.compareTo(pause) < 0) {
          throw e;
        }
        int n = failures.incrementAndGet();
        log.warn(
            "PostgreSQL at {} cannot be reached at start (attempt {}): {}; trying again in {} ({}"
                + " left before giving up)",
            target,
            n,
            reason(e),
            pause,
            left.withNanos(0));
        try {
          // A plain sleep is right here: this is the starting thread, it has nothing else to do
          // until PostgreSQL answers, the pause is bounded by the limit, and an interrupt (the
          // process asked to stop) ends it at once.
          Thread.sleep(pause.toMillis());
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for PostgreSQL", interrupted);
        }
        pause = pause.multipliedBy(2).compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause.multipliedBy(2);
      }
    }
  }

  /** The attempts that failed because the server could not be reached, so far. */
  public int failures() {
    return failures.get();
  }

  /**
   * Whether {@code e} (or a cause) says that PostgreSQL could not be reached or is not accepting
   * connections yet: an SQL state of class 08 (connection exception), 57P01-57P03 (shut down,
   * crashed, starting up or in recovery), or a socket that could not connect or was cut.
   */
  static boolean unreachable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("08") || state.matches("57P0[123]")) {
          return true;
        }
      }
      if (t instanceof ConnectException
          || t instanceof NoRouteToHostException
          || t instanceof SocketTimeoutException
          || t instanceof UnknownHostException
          || t instanceof EOFException) {
        return true;
      }
    }
    return false;
  }

  private static String reason(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e ? e.toString() : e.getClass().getSimpleName() + " (" + root + ")";
  }
}
