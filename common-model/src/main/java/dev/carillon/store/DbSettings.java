package dev.carillon.store;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How to reach PostgreSQL. The password comes from the environment or a mounted file and is never
 * printed: {@link #toString()} masks it, and every message that shows the URL shows {@link
 * #maskedUrl()}, since a URL may carry a password too ({@code ?password=...} or {@code
 * //user:secret@host}).
 *
 * @param poolSize maximum connections in the pool
 * @param connectionTimeout how long a caller waits for a connection before the call fails (while
 *     the database is down, callers fail after this and retry on their own terms)
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
    java.time.Duration connectionTimeout,
    boolean migrate,
    String rolePrefix) {
  public static final int DEFAULT_POOL_SIZE = 8;
  public static final java.time.Duration DEFAULT_CONNECTION_TIMEOUT =
      java.time.Duration.ofSeconds(10);

  public DbSettings(String url, String user, String password, int poolSize) {
    this(url, user, password, poolSize, DEFAULT_CONNECTION_TIMEOUT);
  }

  /** Settings of a service that does not migrate, with the default role prefix. */
  public DbSettings(
      String url, String user, String password, int poolSize, java.time.Duration timeout) {
    this(url, user, password, poolSize, timeout, false, Schema.DEFAULT_ROLE_PREFIX);
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
    Objects.requireNonNull(connectionTimeout, "connectionTimeout");
    if (connectionTimeout.compareTo(java.time.Duration.ofMillis(250)) < 0) {
      throw new IllegalArgumentException(
          "db.connection-timeout must be at least 250ms but was " + connectionTimeout);
    }
    Objects.requireNonNull(url, "url");
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "db.url must start with jdbc:postgresql: but was '" + mask(url) + "'");
    }
    if (poolSize < 1 || poolSize > 200) {
      throw new IllegalArgumentException("db.poolSize must be 1..200 but was " + poolSize);
    }
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
    return new DbSettings(url, user, password, poolSize, connectionTimeout, migrate, rolePrefix);
  }

  /** A copy with a pool of {@code size} connections. */
  public DbSettings withPoolSize(int size) {
    return new DbSettings(url, user, password, size, connectionTimeout, migrate, rolePrefix);
  }

  /** A copy whose service migrates at start ({@code true}) or only checks the schema. */
  public DbSettings withMigrate(boolean migrate) {
    return new DbSettings(url, user, password, poolSize, connectionTimeout, migrate, rolePrefix);
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
        + ", migrate="
        + migrate
        + ", rolePrefix="
        + rolePrefix
        + "]";
  }
}
