package dev.carillon.store;

import java.util.Objects;

/**
 * How to reach PostgreSQL. The password comes from the environment or a mounted file and is never
 * printed: {@link #toString()} masks it.
 *
 * @param poolSize maximum connections in the pool
 */
public record DbSettings(String url, String user, String password, int poolSize) {
  public static final int DEFAULT_POOL_SIZE = 8;

  public DbSettings {
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
