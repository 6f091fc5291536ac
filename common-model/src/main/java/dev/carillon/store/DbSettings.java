package dev.carillon.store;

import java.util.Objects;

/**
 * How to reach PostgreSQL. The password comes from the environment or a mounted file and is never
 * printed: {@link #toString()} masks it.
 *
 * @param poolSize maximum connections in the pool
 * @param connectionTimeout how long a caller waits for a connection before the call fails (while
 *     the database is down, callers fail after this and retry on their own terms)
 */
public record DbSettings(
    String url, String user, String password, int poolSize, java.time.Duration connectionTimeout) {
  public static final int DEFAULT_POOL_SIZE = 8;
  public static final java.time.Duration DEFAULT_CONNECTION_TIMEOUT =
      java.time.Duration.ofSeconds(10);

  public DbSettings(String url, String user, String password, int poolSize) {
    this(url, user, password, poolSize, DEFAULT_CONNECTION_TIMEOUT);
  }

  public DbSettings {
    Objects.requireNonNull(connectionTimeout, "connectionTimeout");
    if (connectionTimeout.compareTo(java.time.Duration.ofMillis(250)) < 0) {
      throw new IllegalArgumentException(
          "db.connection-timeout must be at least 250ms but was " + connectionTimeout);
    }
    Objects.requireNonNull(url, "url");
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "db.url must start with jdbc:postgresql: but was '" + url + "'");
    }
    if (poolSize < 1 || poolSize > 200) {
      throw new IllegalArgumentException("db.poolSize must be 1..200 but was " + poolSize);
    }
  }

  @Override
  public String toString() {
    return "DbSettings[url="
        + url
        + ", user="
        + user
        + ", password=****, poolSize="
        + poolSize
        + "]";
  }
}
