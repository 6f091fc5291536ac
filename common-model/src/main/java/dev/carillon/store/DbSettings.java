package dev.carillon.store;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How to reach PostgreSQL, and how long anything that talks to it may wait. The password comes from
 * the environment or a mounted file and is never printed: {@link #toString()} masks it, and every
 * message that shows the URL shows {@link #maskedUrl()}, since a URL may carry a password too
 * ({@code ?password=...} or {@code //user:secret@host}).
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
 * @param migrate whether a service applies the migrations itself at start ({@code db.migrate}); by
 *     default it only checks that the migrate step has run
 * @param rolePrefix the prefix of the service roles the migrations create and grant to ({@code
 *     db.role-prefix}); see {@link Schema}
 */
public record DbSettings(
    String url,
    String user,
    String password,
    int poolSize,
    Duration connectionTimeout,
    Duration connectTimeout,
    Duration socketTimeout,
    Duration statementTimeout,
    boolean migrate,
    String rolePrefix) {
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

  /** Settings of a service that does not migrate, with the default role prefix and timeouts. */
  public DbSettings(
      String url, String user, String password, int poolSize, Duration connectionTimeout) {
    this(url, user, password, poolSize, connectionTimeout, false, Schema.DEFAULT_ROLE_PREFIX);
  }

  /** Settings with the default connect, socket and statement timeouts. */
  public DbSettings(
      String url,
      String user,
      String password,
      int poolSize,
      Duration connectionTimeout,
      boolean migrate,
      String rolePrefix) {
    this(
        url,
        user,
        password,
        poolSize,
        connectionTimeout,
        DEFAULT_CONNECT_TIMEOUT,
        DEFAULT_SOCKET_TIMEOUT,
        DEFAULT_STATEMENT_TIMEOUT,
        migrate,
        rolePrefix);
  }

  /** Settings of a service that does not migrate, with the default role prefix. */
  public DbSettings(
      String url,
      String user,
      String password,
      int poolSize,
      Duration connectionTimeout,
      Duration connectTimeout,
      Duration socketTimeout,
      Duration statementTimeout) {
    this(
        url,
        user,
        password,
        poolSize,
        connectionTimeout,
        connectTimeout,
        socketTimeout,
        statementTimeout,
        false,
        Schema.DEFAULT_ROLE_PREFIX);
  }

  public DbSettings {
    if (rolePrefix == null || !Schema.ROLE_PREFIX.matcher(rolePrefix).matches()) {
      throw new IllegalArgumentException(
          "db.role-prefix must match "
              + Schema.ROLE_PREFIX.pattern()
              + " (it becomes part of role names), was '"
              + rolePrefix
              + "'");
    }
    Objects.requireNonNull(url, "url");
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "db.url must start with jdbc:postgresql: but was '" + mask(url) + "'");
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
        statementTimeout,
        migrate,
        rolePrefix);
  }

  // A parameter whose name holds "password" (password, sslpassword), up to the next separator.
  private static final Pattern URL_PASSWORD = Pattern.compile("(?i)([?&;][^=&;]*password=)[^&;]*");
  private static final Pattern URL_USERINFO = Pattern.compile("//([^/:@?]*):[^@/?]*@");

  /**
   * {@code url} with every password in it replaced by {@code ****}: the value of each parameter
   * whose name contains {@code password} and the password part of {@code //user:password@host}.
   */
  public static String mask(String url) {
    if (url == null) {
      return null;
    }
    String masked = URL_PASSWORD.matcher(url).replaceAll("$1****");
    return URL_USERINFO.matcher(masked).replaceAll("//$1:****@");
  }

  /** A copy that logs in as {@code user} with {@code password}, e.g. a service's own role. */
  public DbSettings withLogin(String user, String password) {
    return copy(url, user, password, poolSize, migrate);
  }

  /** A copy with a pool of {@code size} connections. */
  public DbSettings withPoolSize(int size) {
    return copy(url, user, password, size, migrate);
  }

  /** A copy whose service migrates at start ({@code true}) or only checks the schema. */
  public DbSettings withMigrate(boolean migrate) {
    return copy(url, user, password, poolSize, migrate);
  }

  private DbSettings copy(String url, String user, String password, int poolSize, boolean migrate) {
    return new DbSettings(
        url,
        user,
        password,
        poolSize,
        connectionTimeout,
        connectTimeout,
        socketTimeout,
        statementTimeout,
        migrate,
        rolePrefix);
  }

  /** The URL with any password in it masked, for logs and messages. */
  public String maskedUrl() {
    return mask(url);
  }

  @Override
  public String toString() {
    return "DbSettings[url="
        + maskedUrl()
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
        + ", migrate="
        + migrate
        + ", rolePrefix="
        + rolePrefix
        + "]";
  }
}
