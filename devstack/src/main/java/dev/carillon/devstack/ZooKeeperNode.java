package dev.carillon.devstack;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stack's ZooKeeper: one standalone server in this JVM (Curator's {@link TestingServer}) with
 * its data in one directory.
 *
 * <p>The tick is 500 ms: ZooKeeper allows sessions of 2 to 20 ticks, so tests can use 1 s sessions
 * to exercise expiry quickly while services may still ask for up to a minute. A session that has
 * not timed out while the server was stopped resumes after {@link #start()}.
 */
public final class ZooKeeperNode extends AbstractServerNode {
  private static final Logger log = LoggerFactory.getLogger(ZooKeeperNode.class);
  private static final int TICK_MILLIS = 500;

  private final Path dataDir;
  private final int port;
  private final String host;
  private volatile TestingServer server;

  /**
   * @param listenAddress the address to listen on, {@code null} for 127.0.0.1
   */
  ZooKeeperNode(Path dataDir, int port, String listenAddress) {
    this.dataDir = dataDir;
    this.port = port;
    this.host = listenAddress == null ? "127.0.0.1" : listenAddress;
  }

  @Override
  public String name() {
    return "ZooKeeper";
  }

  @Override
  public int port() {
    return port;
  }

  /** ZooKeeper connect string, e.g. {@code 127.0.0.1:40125}. */
  public String connectString() {
    return host + ":" + port;
  }

  private Map<String, Object> properties() {
    Map<String, Object> p = new HashMap<>();
    p.put("maxSessionTimeout", "60000");
    p.put("admin.enableServer", "false");
    // Without it ZooKeeper listens on every interface.
    p.put("clientPortAddress", host);
    return p;
  }

  @Override
  void startServer() {
    try {
      if (server == null) {
        removeGeneratedConfigurations(); // left by a stack that was killed
        Files.createDirectories(dataDir);
        InstanceSpec spec =
            new InstanceSpec(
                dataDir.toFile(),
                port,
                -1,
                -1,
                false, // the data directory belongs to the stack, which deletes it if temporary
                -1,
                TICK_MILLIS,
                -1,
                properties(),
                host);
        server = new TestingServer(spec, true);
      } else {
        // A stopped TestingServer starts again only through restart(), on the same spec.
        server.restart();
      }
    } catch (Exception e) {
      throw new DevStackException("cannot start ZooKeeper on port " + port, e);
    }
  }

  @Override
  void stopServer() {
    try {
      server.stop();
    } catch (IOException e) {
      throw new DevStackException("cannot stop ZooKeeper on port " + port, e);
    }
  }

  @Override
  void release() {
    TestingServer s = server;
    server = null;
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        throw new DevStackException("cannot close ZooKeeper on port " + port, e);
      } finally {
        removeGeneratedConfigurations();
      }
    }
  }

  /**
   * ZooKeeper's embedded server writes the configuration it was given, "generated at every boot",
   * to a new {@code zookeeper.configuration<n>.properties} beside its data directory on each start
   * and never removes it; the stack's directory is ours, so the node removes them.
   */
  private void removeGeneratedConfigurations() {
    Path parent = dataDir.getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      return;
    }
    try (DirectoryStream<Path> files =
        Files.newDirectoryStream(parent, "zookeeper.configuration*.properties")) {
      for (Path file : files) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      log.warn("cannot remove ZooKeeper's generated configuration files in {}: {}", parent, e);
    }
  }
}
