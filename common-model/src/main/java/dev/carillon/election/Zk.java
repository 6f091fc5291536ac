package dev.carillon.election;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.retry.BoundedExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the one Curator client a service shares between its ZooKeeper recipes, and keeps
 * Carillon's nodes to Carillon's identity when digest authentication is on.
 */
public final class Zk {
  /** First pause between retries of one ZooKeeper operation. */
  public static final Duration RETRY_BASE_SLEEP = Duration.ofMillis(100);

  /** Longest pause between retries. */
  public static final Duration RETRY_MAX_SLEEP = Duration.ofSeconds(2);

  /** Retries of one operation before it fails to the caller (about 10 s of trying in all). */
  public static final int RETRY_MAX_ATTEMPTS = 8;

  /** Connection timeout never exceeds this, however long the session. */
  public static final Duration MAX_CONNECTION_TIMEOUT = Duration.ofSeconds(15);

  private static final Logger log = LoggerFactory.getLogger(Zk.class);

  private Zk() {}

  /** {@link #connect(String, Duration, Optional)} without authentication (open ACLs). */
  public static CuratorFramework connect(String connect, Duration sessionTimeout) {
    return connect(connect, sessionTimeout, Optional.empty());
  }

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
   * @param digest the identity to authenticate with; when present, every node this client creates
   *     (the election's parents, latch nodes) gets an ACL that grants everything to this identity
   *     and nothing to anyone else, through Curator's {@link ACLProvider}
   * @return the started client; the caller closes it
   */
  public static CuratorFramework connect(
      String connect, Duration sessionTimeout, Optional<ZkDigest> digest) {
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
    CuratorFrameworkFactory.Builder builder =
        CuratorFrameworkFactory.builder()
            .connectString(connect)
            .sessionTimeoutMs((int) sessionTimeout.toMillis())
            .connectionTimeoutMs((int) connectionTimeout.toMillis())
            .zkClientConfig(clientConfig())
            .retryPolicy(
                new BoundedExponentialBackoffRetry(
                    (int) RETRY_BASE_SLEEP.toMillis(),
                    (int) RETRY_MAX_SLEEP.toMillis(),
                    RETRY_MAX_ATTEMPTS));
    if (digest.isPresent()) {
      builder.authorization("digest", digest.get().authBytes()).aclProvider(only(digest.get()));
    }
    CuratorFramework client = builder.build();
    client.start();
    return client;
  }

  /**
   * The ZooKeeper client's settings: SASL off. Carillon authenticates with a digest (or not at
   * all), and a SASL-enabled client looks up the server's host name on every connection attempt,
   * reverse DNS included, on the thread that reconnects. Where no resolver answers (a host cut off
   * from the network, a pod whose DNS is down) that lookup waits the resolver's timeouts, about 10
   * s per name: a trigger healed from a partition was seen to rejoin the election only after 20 s
   * of such waits per attempt, and once not within 35 s.
   */
  static ZKClientConfig clientConfig() {
    ZKClientConfig config = new ZKClientConfig();
    config.setProperty(ZKClientConfig.ENABLE_CLIENT_SASL_KEY, "false");
    return config;
  }

  private static ACLProvider only(ZkDigest digest) {
    List<ACL> acl = List.of(digest.acl());
    return new ACLProvider() {
      @Override
      public List<ACL> getDefaultAcl() {
        return acl;
      }

      @Override
      public List<ACL> getAclForPath(String path) {
        return acl;
      }
    };
  }

  /**
   * Makes {@code path} and its parents persistent nodes that only {@code digest} may use, and
   * removes the children of {@code path} that carry any other ACL. The client must authenticate as
   * {@code digest} ({@link #connect(String, Duration, Optional)}).
   *
   * <p>Why: ACLs apply only to nodes a client creates. Nodes made before authentication was turned
   * on keep their open ACL, and Curator creates an election's parents as container nodes, which
   * ZooKeeper deletes once empty; anyone could then re-create them open and plant a latch node that
   * sorts first and holds leadership forever. Persistent parents with this client's ACL, set before
   * joining, leave a client without the digest no way to create, change or delete anything under
   * them.
   *
   * @throws IllegalStateException naming the node when it belongs to another identity that does not
   *     let this one change it
   */
  static void secure(CuratorFramework client, String path, ZkDigest digest) {
    List<ACL> acl = List.of(digest.acl());
    String node = "";
    try {
      for (String part : path.substring(1).split("/")) {
        node = node + "/" + part;
        if (client.checkExists().forPath(node) == null) {
          try {
            client.create().withMode(CreateMode.PERSISTENT).withACL(acl).forPath(node);
            continue;
          } catch (KeeperException.NodeExistsException raced) {
            // Another participant made it meanwhile; check its ACL below.
          }
        }
        List<ACL> actual = client.getACL().forPath(node);
        if (!new HashSet<>(actual).equals(new HashSet<>(acl))) {
          log.warn(
              "ZooKeeper node {} had ACL {}; setting it to Carillon's identity only", node, actual);
          client.setACL().withACL(acl).forPath(node);
        }
      }
      for (String child : client.getChildren().forPath(path)) {
        String childPath = path + "/" + child;
        List<ACL> actual = client.getACL().forPath(childPath);
        if (!new HashSet<>(actual).equals(new HashSet<>(acl))) {
          log.warn(
              "Deleting ZooKeeper node {} under the election: its ACL {} is not Carillon's, so"
                  + " another identity made it",
              childPath,
              actual);
          client.delete().forPath(childPath);
        }
      }
    } catch (KeeperException.NoAuthException e) {
      throw new IllegalStateException(
          "ZooKeeper node "
              + node
              + " belongs to another identity, which does not let Carillon's change it: delete"
              + " it as its owner (or a ZooKeeper super user) while Carillon is stopped",
          e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot secure ZooKeeper node " + node + ": " + e, e);
    }
  }
}
