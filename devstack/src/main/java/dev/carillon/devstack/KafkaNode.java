package dev.carillon.devstack;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
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
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RetriableException;
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
 *
 * <p>With SASL ({@link DevStackOptions#kafkaSasl()}), the client listener takes only SCRAM-SHA-512
 * clients and the standard KRaft authorizer allows nothing that no ACL allows. The super user
 * {@value #SUPER_USER} (its password generated once per data directory, in {@code
 * kafka-admin.password}) is bootstrapped into the storage at format time and is what {@link
 * #createTopic}, {@link #addUser} and callers that set up ACLs use ({@link
 * #superUserProperties()}). The controller listener stays plaintext on localhost, and its
 * unauthenticated principal is a super user so that the broker can register with the controller:
 * fine on a developer's machine, not a production setup (see docs/security.md).
 */
public final class KafkaNode extends AbstractServerNode {
  private static final Logger log = LoggerFactory.getLogger(KafkaNode.class);
  private static final int NODE_ID = 1;
  private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);

  /** The SASL super user that sets up topics, users and ACLs. */
  public static final String SUPER_USER = "admin";

  /** The SASL mechanism of the client listener. */
  public static final String SASL_MECHANISM = "SCRAM-SHA-512";

  private final Path logDir;
  private final Path configFile;
  private final int port;
  private final int controllerPort;
  private final Properties properties;
  private final boolean sasl;
  private final String host;
  private final String superUserPassword;
  private volatile KafkaRaftServer server;

  /**
   * @param stackDir the stack's directory; Kafka keeps its logs in {@code kafka/} and its
   *     configuration in {@code kafka-server.properties} there
   * @param listenAddress the broker listener's address, {@code null} for localhost (the KRaft
   *     controller always listens on localhost)
   */
  KafkaNode(
      Path stackDir,
      int port,
      int controllerPort,
      int partitions,
      boolean sasl,
      String listenAddress) {
    this.logDir = stackDir.resolve("kafka");
    this.configFile = stackDir.resolve("kafka-server.properties");
    this.port = port;
    this.controllerPort = controllerPort;
    this.sasl = sasl;
    this.host = listenAddress == null ? "localhost" : listenAddress;
    this.superUserPassword = sasl ? superUserPassword(stackDir) : "";
    this.properties = properties(partitions);
    redirectExits();
  }

  /** The super user's password, generated on first use and kept with the data. */
  private static String superUserPassword(Path stackDir) {
    Path file = stackDir.resolve("kafka-admin.password");
    try {
      if (Files.exists(file)) {
        return Files.readString(file, StandardCharsets.UTF_8).trim();
      }
      byte[] bytes = new byte[24];
      new SecureRandom().nextBytes(bytes);
      String password = HexFormat.of().formatHex(bytes);
      Files.writeString(file, password, StandardCharsets.UTF_8);
      return password;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or write " + file, e);
    }
  }

  /** Whether the client listener takes only SASL clients and authorizes them by ACL. */
  public boolean sasl() {
    return sasl;
  }

  /**
   * Client properties that authenticate as {@code user} with SCRAM-SHA-512 (none for a plaintext
   * node): {@code security.protocol}, {@code sasl.mechanism} and {@code sasl.jaas.config}.
   */
  public Map<String, String> clientProperties(String user, String password) {
    if (!sasl) {
      return Map.of();
    }
    return Map.of(
        "security.protocol",
        "SASL_PLAINTEXT",
        "sasl.mechanism",
        SASL_MECHANISM,
        "sasl.jaas.config",
        jaas(user, password));
  }

  /** {@link #clientProperties} of the super user {@value #SUPER_USER} (none for plaintext). */
  public Map<String, String> superUserProperties() {
    return clientProperties(SUPER_USER, superUserPassword);
  }

  /**
   * Creates (or changes the password of) a SCRAM user, as the super user.
   *
   * @throws IllegalStateException when the node does not use SASL or Kafka refuses
   */
  public void addUser(String user, String password) {
    if (!sasl) {
      throw new IllegalStateException("Kafka runs without SASL; there are no users to add");
    }
    try (Admin admin = Admin.create(adminProperties())) {
      admin
          .alterUserScramCredentials(
              List.of(
                  new UserScramCredentialUpsertion(
                      user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password)))
          .all()
          .get(TOPIC_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while adding Kafka user " + user, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot add Kafka user " + user + ": " + e, e);
    }
  }

  private static String jaas(String user, String password) {
    return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
        + user
        + "\" password=\""
        + password
        + "\";";
  }

  private Map<String, Object> adminProperties() {
    Map<String, Object> props = new HashMap<>(superUserProperties());
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    return props;
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
    createTopic(new NewTopic(name, partitions, (short) 1));
  }

  /**
   * Creates a one-partition compacted topic (a config topic, as the create-topics step makes it)
   * and waits until it has a leader.
   */
  public void createCompactedTopic(String name) {
    createTopic(new NewTopic(name, 1, (short) 1).configs(Map.of("cleanup.policy", "compact")));
  }

  private void createTopic(NewTopic topic) {
    String name = topic.name();
    Map<String, Object> props = adminProperties();
    long deadline = System.nanoTime() + TOPIC_TIMEOUT.toNanos();
    try (Admin admin = Admin.create(props)) {
      admin.createTopics(List.of(topic)).all().get(TOPIC_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      while (true) {
        TopicDescription d = describe(admin, name);
        if (d != null
            && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())
            && servesOffsets(admin, d)) {
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
   * Whether every partition's leader answers a list-offsets request: the controller names a leader
   * before that broker serves the partition, and a producer that sends in between was seen to be
   * stuck (NOT_LEADER_OR_FOLLOWER, then OUT_OF_ORDER_SEQUENCE) until its delivery timeout.
   */
  private static boolean servesOffsets(Admin admin, TopicDescription d)
      throws InterruptedException, TimeoutException, ExecutionException {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    d.partitions()
        .forEach(p -> latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
    try {
      admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RetriableException) {
        return false;
      }
      throw e;
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
    List<String> args =
        new ArrayList<>(
            List.of(
                "format",
                "--cluster-id",
                Uuid.randomUuid().toString(),
                "--config",
                configFile.toString()));
    if (sasl) {
      // SCRAM users live in the metadata log; the super user must be there before the broker
      // can authenticate anyone, so it is written at format time.
      args.add("--add-scram");
      args.add(SASL_MECHANISM + "=[name=" + SUPER_USER + ",password=" + superUserPassword + "]");
    }
    int rc;
    try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      rc = StorageTool.execute(args.toArray(String[]::new), ps);
    }
    String output = out.toString(StandardCharsets.UTF_8).trim();
    if (rc != 0) {
      throw new DevStackException("kafka-storage format failed (" + rc + "): " + output);
    }
    log.debug("kafka-storage format: {}", output);
  }

  private Properties properties(int partitions) {
    String client = sasl ? "SASL_PLAINTEXT" : "PLAINTEXT";
    Map<String, String> p =
        new HashMap<>(
            Map.ofEntries(
                Map.entry("process.roles", "broker,controller"),
                Map.entry("node.id", Integer.toString(NODE_ID)),
                Map.entry("controller.quorum.voters", NODE_ID + "@localhost:" + controllerPort),
                Map.entry(
                    "listeners",
                    client
                        + "://"
                        + host
                        + ":"
                        + port
                        + ",CONTROLLER://localhost:"
                        + controllerPort),
                Map.entry("advertised.listeners", client + "://" + host + ":" + port),
                Map.entry("controller.listener.names", "CONTROLLER"),
                Map.entry("inter.broker.listener.name", client),
                Map.entry(
                    "listener.security.protocol.map",
                    client + ":" + client + ",CONTROLLER:PLAINTEXT"),
                Map.entry("log.dirs", logDir.toString()),
                Map.entry("num.partitions", Integer.toString(partitions)),
                Map.entry("auto.create.topics.enable", Boolean.toString(!sasl)),
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
                Map.entry("num.recovery.threads.per.data.dir", "1")));
    if (sasl) {
      p.put("sasl.enabled.mechanisms", SASL_MECHANISM);
      p.put("sasl.mechanism.inter.broker.protocol", SASL_MECHANISM);
      p.put(
          "listener.name.sasl_plaintext."
              + SASL_MECHANISM.toLowerCase(java.util.Locale.ROOT)
              + ".sasl.jaas.config",
          jaas(SUPER_USER, superUserPassword));
      p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
      p.put("allow.everyone.if.no.acl.found", "false");
      // ANONYMOUS is the broker itself on the plaintext controller listener (see the class
      // comment); on the client listener nobody is anonymous.
      p.put("super.users", "User:" + SUPER_USER + ";User:ANONYMOUS");
    }
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
