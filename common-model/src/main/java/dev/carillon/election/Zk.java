package dev.carillon.election;

import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;

/** Builds the one Curator client a service shares between its ZooKeeper recipes. */
public final class Zk {
  /** First pause between retries of one ZooKeeper operation. */
  public static final Duration RETRY_BASE_SLEEP = Duration.ofMillis(100);

  /** Longest pause between retries. */
  public static final Duration RETRY_MAX_SLEEP = Duration.ofSeconds(2);

  /** Retries of one operation before it fails to the caller (about 10 s of trying in all). */
  public static final int RETRY_MAX_ATTEMPTS = 8;

  /** Connection timeout never exceeds this, however long the session. */
  public static final Duration MAX_CONNECTION_TIMEOUT = Duration.ofSeconds(15);

  private Zk() {}

  /**
   * Creates and starts a Curator client. It connects in the background; recipes such as {@link
   * LeaderElection} wait for the connection themselves.
   *
   * <p>Each operation is retried with exponential backoff ({@link #RETRY_BASE_SLEEP} doubling up to
   * {@link #RETRY_MAX_SLEEP}, {@link #RETRY_MAX_ATTEMPTS} times), so a ZooKeeper outage surfaces as
   * an error within seconds instead of a call that hangs.
   *
   * @param connect ZooKeeper connect string, e.g. {@code zk-1:2181,zk-2:2181/carillon}
   * @param sessionTimeout the session timeout to ask for; the server clamps it to its own bounds
   *     (by default 2 to 20 ticks). After this long without contact the session expires and its
   *     ephemeral nodes, including leadership, go away.
   * @return the started client; the caller closes it
   */
  public static CuratorFramework connect(String connect, Duration sessionTimeout) {
    if (connect == null || connect.isBlank()) {
      throw new IllegalArgumentException("connect must not be blank, was '" + connect + "'");
    }
    if (sessionTimeout == null || sessionTimeout.isNegative() || sessionTimeout.isZero()) {
      throw new IllegalArgumentException("sessionTimeout must be positive, was " + sessionTimeout);
    }
    Duration connectionTimeout =
        sessionTimeout.compareTo(MAX_CONNECTION_TIMEOUT) < 0
            ? sessionTimeout
            : MAX_CONNECTION_TIMEOUT;
    CuratorFramework client =
        CuratorFrameworkFactory.builder()
            .connectString(connect)
            .sessionTimeoutMs((int) sessionTimeout.toMillis())
            .connectionTimeoutMs((int) connectionTimeout.toMillis())
            .retryPolicy(
                new BoundedExponentialBackoffRetry(
                    (int) RETRY_BASE_SLEEP.toMillis(),
                    (int) RETRY_MAX_SLEEP.toMillis(),
                    RETRY_MAX_ATTEMPTS))
            .build();
    client.start();
    return client;
  }
}
