package dev.carillon.store;

import java.time.Duration;
import java.util.Objects;

/**
 * How to reach PostgreSQL, and how long anything that talks to it may wait. The password comes from
 * the environment or a mounted file and is never printed: {@link #toString()} masks it.
 *
 * <p>Every call a service makes is bounded by these timeouts, so that a database that is down, or
 * up but not answering (a frozen host, a full disk), surfaces as an error within seconds instead of
 * a thread that waits forever:
 *
 * <ul>
 *   <li>{@code connectionTimeout}: how long a caller waits for a connection from the pool;
 *   <li>{@code connectTimeout}: how long opening one connection (TCP connect and login) may take;
 *   <li>{@code statementTimeout}: PostgreSQL's own {@code statement_timeout} for every statement,
 *       and its {@code idle_in_transaction_session_timeout}, so that a session whose client froze
 *       inside a transaction releases its locks;
 *   <li>{@code socketTimeout}: how long the driver waits for any answer on an open connection; the
 *       last resort when the server cannot even cancel a statement (it is stopped or unreachable).
 *       It must exceed the statement timeout, so that a slow statement is cancelled cleanly by the
 *       server before the client gives up on the connection.
 * </ul>
 *
 * @param poolSize maximum connections in the pool
 */
public record DbSettings(
    String url,
    String user,
    String password,
    int poolSize,
    Duration connectionTimeout,
    Duration connectTimeout,
    Duration socketTimeout,
    Duration statementTimeout) {
  public static final int DEFAULT_POOL_SIZE = 8;
  public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(20);
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(15);

  /** Shortest {@code connectionTimeout}; HikariCP refuses less. */
  public static final Duration MIN_CONNECTION_TIMEOUT = Duration.ofMillis(250);

  public DbSettings(String url, String user, String password, int poolSize) {
    this(url, user, password, poolSize, DEFAULT_CONNECTION_TIMEOUT);
  }

  public DbSettings(
      String url, String user, String password, int poolSize, Duration connectionTimeout) {
    this(
        url,
        user,
        password,
        poolSize,
        connectionTimeout,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_SOCKET_TIMEOUT,
        DEFAULT_STATEMENT_TIMEOUT);
  }

  public DbSettings {
    Objects.requireNonNull(url, "url");
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "db.url must start with jdbc:postgresql: but was '" + url + "'");
    }
    if (poolSize < 1 || poolSize > 200) {
      throw new IllegalArgumentException("db.pool-size must be 1..200 but was " + poolSize);
    }
    Objects.requireNonNull(connectionTimeout, "connectionTimeout");
    if (connectionTimeout.compareTo(MIN_CONNECTION_TIMEOUT) < 0) {
      throw new IllegalArgumentException(
          "db.connection-timeout must be at least 250ms but was " + connectionTimeout);
    }
    // The driver counts both in whole seconds.
    requireWholeSeconds("db.connect-timeout", connectTimeout);
    requireWholeSeconds("db.socket-timeout", socketTimeout);
    Objects.requireNonNull(statementTimeout, "statementTimeout");
    if (statementTimeout.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException(
          "db.statement-timeout must be at least 100ms but was " + statementTimeout);
    }
    if (socketTimeout.compareTo(statementTimeout) <= 0) {
      throw new IllegalArgumentException(
          "db.socket-timeout ("
              + socketTimeout
              + ") must be longer than db.statement-timeout ("
              + statementTimeout
              + "), so that the server cancels a slow statement before the client drops the"
              + " connection");
    }
  }

  private static void requireWholeSeconds(String key, Duration d) {
    Objects.requireNonNull(d, key);
    if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.toMillis() % 1000 != 0) {
      throw new IllegalArgumentException(key + " must be whole seconds, at least 1s, but was " + d);
    }
  }

  /**
   * A copy with other statement and socket timeouts (tests of a hanging database use short ones).
   */
  public DbSettings withTimeouts(
      Duration connectTimeout, Duration socketTimeout, Duration statementTimeout) {
    return new DbSettings(
        url,
        user,
        password,
        poolSize,
        connectionTimeout,
        connectTimeout,
        socketTimeout,
        statementTimeout);
  }

  @Override
  public String toString() {
    return "DbSettings[url="
        + url
        + ", user="
        + user
        + ", password=****, poolSize="
        + poolSize
        + ", connectionTimeout="
        + connectionTimeout
        + ", connectTimeout="
        + connectTimeout
        + ", socketTimeout="
        + socketTimeout
        + ", statementTimeout="
        + statementTimeout
        + "]";
  }
}
