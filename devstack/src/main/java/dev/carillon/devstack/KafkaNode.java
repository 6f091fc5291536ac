package dev.carillon.devstack;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.Exit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stack's Kafka: one KRaft node that is both broker and controller, in this JVM.
 *
 * <p>It runs with small heaps and buffers ({@code log.cleaner.dedupe.buffer.size} of 2 MiB instead
 * of 128 MiB), replication factor 1 everywhere, {@code group.initial.rebalance.delay.ms=0} and four
 * offsets partitions, so that consumer groups form in well under a second. Because broker and
 * controller share this JVM, Kafka's fatal-error exits are redirected to an error log and an
 * exception instead of {@code System.exit}, which would kill the test JVM.
 *
 * <p>The storage is formatted on first start and kept: a restart, or a new stack on the same data
 * directory, finds its cluster id, topics and records again. A JVM that died without stopping Kafka
 * leaves no lock behind (Kafka's directory lock is a file lock the operating system drops with the
 * process), and Kafka recovers its logs on the next start.
 */
public final class KafkaNode extends AbstractServerNode {
  private static final Logger log = LoggerFactory.getLogger(KafkaNode.class);
  private static final int NODE_ID = 1;
  private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);

  private final Path logDir;
  private final Path configFile;
  private final int port;
  private final int controllerPort;
  private final String host;
  private final Properties properties;
  private volatile KafkaRaftServer server;

  /**
   * @param stackDir the stack's directory; Kafka keeps its logs in {@code kafka/} and its
   *     configuration in {@code kafka-server.properties} there
   * @param listenAddress the broker listener's address, {@code null} for localhost (the KRaft
   *     controller always listens on localhost)
   */
  KafkaNode(Path stackDir, int port, int controllerPort, int partitions, String listenAddress) {
    this.logDir = stackDir.resolve("kafka");
    this.configFile = stackDir.resolve("kafka-server.properties");
    this.port = port;
    this.controllerPort = controllerPort;
    this.host = listenAddress == null ? "localhost" : listenAddress;
    this.properties = properties(partitions);
    redirectExits();
  }

  @Override
  public String name() {
    return "Kafka";
  }

  @Override
  public int port() {
    return port;
  }

  /** The KRaft controller's port. */
  public int controllerPort() {
    return controllerPort;
  }

  /** Kafka {@code bootstrap.servers}, e.g. {@code localhost:40123}. */
  public String bootstrap() {
    return host + ":" + port;
  }

  /**
   * Creates a topic and waits until each of its partitions has a leader; see {@link
   * DevStack#createTopic}.
   *
   * @throws IllegalStateException when Kafka does not create it within 30 seconds
   */
  public void createTopic(String name, int partitions) {
    Map<String, Object> props = new HashMap<>();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    long deadline = System.nanoTime() + TOPIC_TIMEOUT.toNanos();
    try (Admin admin = Admin.create(props)) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
          .all()
          .get(TOPIC_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      while (true) {
        TopicDescription d = describe(admin, name);
        if (d != null
            && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
          return;
        }
        if (System.nanoTime() - deadline >= 0) {
          throw new IllegalStateException(
              "topic " + name + " has partitions without a leader: " + d);
        }
        // Polling is the only way: the admin client has no call that waits until a topic has
        // leaders. They are elected within milliseconds on this one broker, and the deadline
        // above bounds the loop; the short pause keeps an immediate "unknown topic" answer from
        // spinning a core.
        Thread.sleep(10);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + name, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot create topic " + name + ": " + e, e);
    }
  }

  /**
   * The topic's description, or null while the broker does not know the topic yet: creation is
   * acknowledged by the controller, and the broker's metadata can lag it by a moment (seen once in
   * CI as UnknownTopicOrPartitionException right after a successful create).
   */
  private static TopicDescription describe(Admin admin, String name)
      throws InterruptedException, ExecutionException, TimeoutException {
    try {
      return admin
          .describeTopics(List.of(name))
          .allTopicNames()
          .get(10, TimeUnit.SECONDS)
          .get(name);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return null;
      }
      throw e;
    }
  }

  @Override
  void startServer() {
    try {
      Files.createDirectories(logDir);
      try (OutputStream out = Files.newOutputStream(configFile)) {
        properties.store(out, "written by Carillon DevStack");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + configFile, e);
    }
    // Format once; a persistent data directory (or a restart) keeps its cluster id and data.
    if (!Files.exists(logDir.resolve("meta.properties"))) {
      formatStorage();
    }
    KafkaRaftServer s = new KafkaRaftServer(new KafkaConfig(properties, false), Time.SYSTEM);
    try {
      s.startup();
    } catch (RuntimeException e) {
      s.shutdown();
      throw new DevStackException("cannot start Kafka on port " + port, e);
    }
    server = s;
  }

  @Override
  void stopServer() {
    KafkaRaftServer s = server;
    server = null;
    s.shutdown();
    s.awaitShutdown();
  }

  private void formatStorage() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String[] args = {
      "format", "--cluster-id", Uuid.randomUuid().toString(), "--config", configFile.toString()
    };
    int rc;
    try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      rc = StorageTool.execute(args, ps);
    }
    String output = out.toString(StandardCharsets.UTF_8).trim();
    if (rc != 0) {
      throw new DevStackException("kafka-storage format failed (" + rc + "): " + output);
    }
    log.debug("kafka-storage format: {}", output);
  }

  private Properties properties(int partitions) {
    Map<String, String> p =
        Map.ofEntries(
            Map.entry("process.roles", "broker,controller"),
            Map.entry("node.id", Integer.toString(NODE_ID)),
            Map.entry("controller.quorum.voters", NODE_ID + "@localhost:" + controllerPort),
            Map.entry(
                "listeners",
                "PLAINTEXT://" + host + ":" + port + ",CONTROLLER://localhost:" + controllerPort),
            Map.entry("advertised.listeners", "PLAINTEXT://" + host + ":" + port),
            Map.entry("controller.listener.names", "CONTROLLER"),
            Map.entry("inter.broker.listener.name", "PLAINTEXT"),
            Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
            Map.entry("log.dirs", logDir.toString()),
            Map.entry("num.partitions", Integer.toString(partitions)),
            Map.entry("auto.create.topics.enable", "true"),
            Map.entry("default.replication.factor", "1"),
            Map.entry("min.insync.replicas", "1"),
            Map.entry("offsets.topic.replication.factor", "1"),
            Map.entry("offsets.topic.num.partitions", "4"),
            Map.entry("transaction.state.log.replication.factor", "1"),
            Map.entry("transaction.state.log.min.isr", "1"),
            Map.entry("transaction.state.log.num.partitions", "4"),
            Map.entry("share.coordinator.state.topic.replication.factor", "1"),
            Map.entry("share.coordinator.state.topic.min.isr", "1"),
            Map.entry("group.initial.rebalance.delay.ms", "0"),
            // The default dedupe buffer holds 128 MiB of heap for compaction we barely use.
            Map.entry("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024)),
            Map.entry("log.cleaner.threads", "1"),
            // CI has two cores: fewer threads start faster and compete less with the tests.
            Map.entry("num.network.threads", "2"),
            Map.entry("num.io.threads", "2"),
            Map.entry("background.threads", "2"),
            Map.entry("num.recovery.threads.per.data.dir", "1"));
    Properties props = new Properties();
    props.putAll(p);
    return props;
  }

  private static void redirectExits() {
    // A fatal error inside the in-process broker would call System.exit/halt and take the test
    // JVM with it; make it fail loudly instead.
    Exit.setExitProcedure(
        (code, message) -> {
          log.error("Kafka asked to exit with status {}: {}", code, message);
          throw new DevStackException("Kafka asked to exit with status " + code + ": " + message);
        });
    Exit.setHaltProcedure(
        (code, message) -> {
          log.error("Kafka asked to halt with status {}: {}", code, message);
          throw new DevStackException("Kafka asked to halt with status " + code + ": " + message);
        });
  }
}
