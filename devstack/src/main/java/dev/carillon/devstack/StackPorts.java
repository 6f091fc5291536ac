package dev.carillon.devstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The four ports of a stack, kept in {@value #FILE} of its data directory so that a stack started
 * again on the same directory listens where the last one did, and a CLI or service configured for
 * it keeps working.
 *
 * <p>For each server: a port given in the options wins; else the recorded port if it is free; else
 * a free port. A recorded port that is taken is replaced, and the replacement is listed in {@link
 * #changes()} so that the caller can say so. The result is written back.
 *
 * @param changes one sentence per recorded port that could not be kept
 */
record StackPorts(
    int postgres, int kafka, int kafkaController, int zooKeeper, List<String> changes) {
  static final String FILE = "ports.properties";

  private static final Logger log = LoggerFactory.getLogger(StackPorts.class);

  StackPorts {
    changes = List.copyOf(changes);
  }

  /** Chooses the ports for a stack in {@code dir} and records them there. */
  static StackPorts assign(Path dir, DevStackOptions options) throws IOException {
    Path file = dir.resolve(FILE);
    Properties recorded = load(file);
    Chooser chooser = new Chooser(recorded, file);
    StackPorts ports =
        new StackPorts(
            chooser.choose("postgres", "PostgreSQL", options.postgresPort()),
            chooser.choose("kafka", "Kafka", options.kafkaPort()),
            chooser.choose("kafka.controller", "Kafka controller", options.kafkaControllerPort()),
            chooser.choose("zookeeper", "ZooKeeper", options.zooKeeperPort()),
            chooser.changes);
    ports.save(file);
    return ports;
  }

  private static Properties load(Path file) throws IOException {
    Properties p = new Properties();
    if (Files.exists(file)) {
      try (InputStream in = Files.newInputStream(file)) {
        p.load(in);
      }
    }
    return p;
  }

  private void save(Path file) throws IOException {
    Properties p = new Properties();
    p.setProperty("postgres", Integer.toString(postgres));
    p.setProperty("kafka", Integer.toString(kafka));
    p.setProperty("kafka.controller", Integer.toString(kafkaController));
    p.setProperty("zookeeper", Integer.toString(zooKeeper));
    Path tmp = file.resolveSibling(FILE + ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp)) {
      p.store(out, "ports of the DevStack in this directory; reused by the next start if free");
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Picks ports one server at a time, never the same port twice. */
  private static final class Chooser {
    private final Properties recorded;
    private final Path file;
    private final Set<Integer> taken = new HashSet<>();
    private final List<String> changes = new ArrayList<>();

    Chooser(Properties recorded, Path file) {
      this.recorded = recorded;
      this.file = file;
    }

    int choose(String key, String server, int requested) throws IOException {
      int port;
      if (requested != 0) {
        port = requested;
      } else {
        int previous = recordedPort(key);
        if (previous == 0) {
          port = freePort();
        } else if (!taken.contains(previous) && isFree(previous)) {
          port = previous;
        } else {
          port = freePort();
          String change =
              server
                  + " port "
                  + previous
                  + " recorded in "
                  + file
                  + " is in use by another program; using "
                  + port
                  + " instead";
          log.warn(change);
          changes.add(change);
        }
      }
      taken.add(port);
      return port;
    }

    private int recordedPort(String key) {
      String value = recorded.getProperty(key);
      if (value == null) {
        return 0;
      }
      try {
        int port = Integer.parseInt(value.strip());
        if (port >= 1 && port <= 65535) {
          return port;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      log.warn("ignoring {}={} in {}: not a port number", key, value, file);
      return 0;
    }

    private int freePort() throws IOException {
      while (true) {
        // The port is picked once and kept, so restarts bind it again; another process could take
        // it between here and the server's bind, which on a developer machine is rare enough.
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
          int port = socket.getLocalPort();
          if (!taken.contains(port)) {
            return port;
          }
        }
      }
    }
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
