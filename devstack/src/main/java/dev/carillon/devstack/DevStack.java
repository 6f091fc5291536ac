package dev.carillon.devstack;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
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
 * Real PostgreSQL, Kafka (KRaft, one combined broker/controller node) and ZooKeeper, started
 * in-process on local ports, for tests and the local stack.
 *
 * <p>Tests call {@link #shared()}, which starts the stack once per JVM and stops it from a shutdown
 * hook; they isolate themselves by database ({@link #createDatabase(String)}), topic or ZooKeeper
 * path, never by restarting servers. Fault hooks ({@link #stopKafka()}, {@link #restartPostgres()},
 * {@link #stopZooKeeper()} ...) keep ports and data, so clients reconnect on their own; a test that
 * uses one must undo it before it returns.
 *
 * <p><b>Time zones.</b> PostgreSQL's default {@code timezone} is deliberately {@value
 * #POSTGRES_TIME_ZONE} (UTC+12:45, +13:45 in the southern summer), not UTC, so that code which lets
 * the server interpret a {@code timestamp} without zone, calls {@code now()::date} or formats dates
 * on the server shows its bug in tests instead of in production. One catch: the PostgreSQL JDBC
 * driver always sends the JVM's zone as the session {@code TimeZone} when it connects, and that
 * beats the server default (and {@code options=-c TimeZone=...} in the URL). JDBC sessions
 * therefore run in the JVM's zone unless they execute {@link #SESSION_TIME_ZONE_SQL} first, for
 * example as a pool's {@code connectionInitSql}, which repository tests should do. Carillon stores
 * every instant as {@code timestamptz} and must be right in any session zone.
 *
 * <p><b>Kafka</b> runs with small heaps and buffers ({@code log.cleaner.dedupe.buffer.size} of 2
 * MiB instead of 128 MiB), replication factor 1 everywhere, {@code
 * group.initial.rebalance.delay.ms=0} and four offsets partitions, so that consumer groups form in
 * well under a second. Because broker and controller share this JVM, Kafka's fatal-error exits are
 * redirected to an error log and an exception instead of {@code System.exit}, which would kill the
 * test JVM.
 *
 * <p>Thread-safety: all methods may be called from any thread; the fault hooks serialize with each
 * other per server.
 */
public final class DevStack implements AutoCloseable {
  /** PostgreSQL's default session time zone: deliberately not UTC (see the class comment). */
  public static final String POSTGRES_TIME_ZONE = "Pacific/Chatham";

  /**
   * Puts a JDBC session into {@value #POSTGRES_TIME_ZONE}; run it on every new connection (e.g.
   * Hikari's {@code connectionInitSql}), since the JDBC driver otherwise uses the JVM's zone.
   */
  public static final String SESSION_TIME_ZONE_SQL = "SET TIME ZONE '" + POSTGRES_TIME_ZONE + "'";

  /** PostgreSQL superuser; the embedded server trusts local connections. */
  public static final String DB_USER = "postgres";

  /** Password to hand to clients; the server accepts any (trust authentication). */
  public static final String DB_PASSWORD = "postgres";

  private static final Logger log = LoggerFactory.getLogger(DevStack.class);
  private static final Pattern DB_PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,39}");
  private static final int KAFKA_NODE_ID = 1;
  // ZooKeeper allows sessions of 2 to 20 ticks; a short tick lets tests use 1 s sessions to
  // exercise expiry quickly while services can still ask for up to a minute.
  private static final int ZK_TICK_MILLIS = 500;
  private static final Object SHARED_LOCK = new Object();
  private static volatile DevStack shared;

  private final Path dataDir;
  private final boolean deleteDataDirOnClose;
  private final boolean isShared;
  private final int postgresPort;
  private final int kafkaPort;
  private final int kafkaControllerPort;
  private final int zooKeeperPort;
  private final Properties kafkaProperties;
  private final Object postgresLock = new Object();
  private final Object kafkaLock = new Object();
  private final Object zooKeeperLock = new Object();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong databaseCounter = new AtomicLong();
  private final SecureRandom random = new SecureRandom();
  private volatile EmbeddedPostgres postgres;
  private volatile KafkaRaftServer kafka;
  private volatile TestingServer zooKeeper;
  private volatile Thread shutdownHook;
  private volatile Duration startupTime = Duration.ZERO;

  private DevStack(DevStackOptions options, boolean isShared) throws IOException {
    this.isShared = isShared;
    if (options.dataDir() == null) {
      Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
      Files.createDirectories(tmp);
      this.dataDir = Files.createTempDirectory(tmp, "carillon-devstack-");
      this.deleteDataDirOnClose = true;
    } else {
      this.dataDir = options.dataDir();
      this.deleteDataDirOnClose = false;
      if (options.fresh()) {
        deleteRecursively(dataDir);
      }
      Files.createDirectories(dataDir);
    }
    this.postgresPort = portOrFree(options.postgresPort());
    this.kafkaPort = portOrFree(options.kafkaPort());
    this.kafkaControllerPort = portOrFree(options.kafkaControllerPort());
    this.zooKeeperPort = portOrFree(options.zooKeeperPort());
    this.kafkaProperties = kafkaProperties(options.kafkaPartitions());
  }

  /**
   * Starts PostgreSQL, Kafka and ZooKeeper and returns when all three accept connections.
   *
   * <p>The servers start in parallel. A shutdown hook closes the stack if the caller does not.
   *
   * @throws DevStackException if a server does not start; the others are stopped again
   */
  public static DevStack start(DevStackOptions options) {
    return start(options, false);
  }

  /**
   * The JVM-wide stack, started with {@link DevStackOptions#defaults()} on first use and stopped by
   * a shutdown hook. Calling {@link #close()} on it does nothing, so that one test cannot take it
   * away from the next.
   */
  public static DevStack shared() {
    DevStack s = shared;
    if (s == null) {
      synchronized (SHARED_LOCK) {
        s = shared;
        if (s == null) {
          s = start(DevStackOptions.defaults(), true);
          shared = s;
        }
      }
    }
    return s;
  }

  private static DevStack start(DevStackOptions options, boolean isShared) {
    long t0 = System.nanoTime();
    DevStack stack;
    try {
      stack = new DevStack(options, isShared);
    } catch (IOException e) {
      throw new DevStackException("cannot prepare data directory " + options.dataDir(), e);
    }
    redirectKafkaExits();
    ExecutorService starter =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "devstack-start");
              t.setDaemon(true);
              return t;
            });
    try {
      CompletableFuture<Duration> pg =
          CompletableFuture.supplyAsync(timed(stack::startPostgresInternal), starter);
      CompletableFuture<Duration> kafka =
          CompletableFuture.supplyAsync(timed(stack::startKafkaInternal), starter);
      // ZooKeeper takes a fifth of a second: start it here rather than queue it behind the others.
      Duration zk = timed(stack::startZooKeeperInternal).get();
      Duration pgTime = pg.join();
      Duration kafkaTime = kafka.join();
      stack.startupTime = Duration.ofNanos(System.nanoTime() - t0);
      log.info(
          "DevStack started in {} ms (PostgreSQL {} ms, Kafka {} ms, ZooKeeper {} ms): {}",
          stack.startupTime.toMillis(),
          pgTime.toMillis(),
          kafkaTime.toMillis(),
          zk.toMillis(),
          stack);
    } catch (RuntimeException e) {
      stack.closeNow();
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      if (cause instanceof DevStackException dse) {
        throw dse;
      }
      throw new DevStackException("DevStack did not start: " + cause, cause);
    } finally {
      starter.shutdown();
    }
    Thread hook = new Thread(stack::closeNow, "devstack-shutdown");
    stack.shutdownHook = hook;
    Runtime.getRuntime().addShutdownHook(hook);
    return stack;
  }

  // ---------------------------------------------------------------- accessors

  /** JDBC URL of the {@code postgres} maintenance database; prefer {@link #createDatabase}. */
  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + postgresPort + "/postgres";
  }

  /** PostgreSQL user name ({@value #DB_USER}). */
  public String dbUser() {
    return DB_USER;
  }

  /** PostgreSQL password ({@value #DB_PASSWORD}; the server does not check it). */
  public String dbPassword() {
    return DB_PASSWORD;
  }

  /** PostgreSQL port. */
  public int postgresPort() {
    return postgresPort;
  }

  /** Kafka {@code bootstrap.servers}, e.g. {@code localhost:40123}. */
  public String kafkaBootstrap() {
    return "localhost:" + kafkaPort;
  }

  /**
   * Creates a topic and waits until each of its partitions has a leader, as a deployment does
   * before its services start. Tests that publish with an idempotent producer should use it rather
   * than auto-creation: a first batch sent while the auto-created partition has no leader gets
   * NOT_LEADER_OR_FOLLOWER, later batches land meanwhile, and the retried first batch is then
   * refused as OUT_OF_ORDER_SEQUENCE until the producer gives up.
   *
   * @throws IllegalStateException when Kafka does not create it within 30 seconds
   */
  public void createTopic(String name, int partitions) {
    Map<String, Object> props = new HashMap<>();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafkaBootstrap());
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    try (Admin admin = Admin.create(props)) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
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
        // leaders. They are elected within milliseconds on this one broker, and the 30 s deadline
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

  /** ZooKeeper connect string, e.g. {@code 127.0.0.1:40125}. */
  public String zkConnect() {
    return "127.0.0.1:" + zooKeeperPort;
  }

  /** Directory holding {@code pg/}, {@code kafka/} and {@code zk/}. */
  public Path dataDir() {
    return dataDir;
  }

  /** Wall time {@link #start} took, for reports. */
  public Duration startupTime() {
    return startupTime;
  }

  /**
   * Whether the Kafka broker is running (false between {@link #stopKafka} and {@link #startKafka}).
   */
  public boolean isKafkaRunning() {
    return kafka != null;
  }

  // ---------------------------------------------------------------- PostgreSQL

  /**
   * Creates an empty database named {@code <prefix>_<n>_<random>} and returns its JDBC URL.
   *
   * <p>Connect with {@link #dbUser()} and {@link #dbPassword()}, and run {@link
   * #SESSION_TIME_ZONE_SQL} on each connection to work in the deliberately odd zone (see the class
   * comment).
   *
   * @param prefix lower-case letters, digits and underscores, starting with a letter, at most 40
   *     characters; names the test or component that owns the database
   * @throws IllegalArgumentException if the prefix breaks that rule
   * @throws DevStackException if PostgreSQL refuses
   */
  public String createDatabase(String prefix) {
    if (prefix == null || !DB_PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "prefix must match " + DB_PREFIX.pattern() + ", was '" + prefix + "'");
    }
    byte[] suffix = new byte[4];
    random.nextBytes(suffix);
    // The counter keeps names readable in logs; the random part keeps them unique across runs
    // that reuse a persistent data directory.
    String name =
        prefix + "_" + databaseCounter.incrementAndGet() + "_" + HexFormat.of().formatHex(suffix);
    // CREATE DATABASE copies template1 and fails while another session uses it, so creations
    // are serialized; the lock also keeps them apart from restartPostgres().
    synchronized (postgresLock) {
      try (Connection c = DriverManager.getConnection(jdbcUrl(), DB_USER, DB_PASSWORD);
          Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + name);
      } catch (SQLException e) {
        throw new DevStackException("cannot create database " + name + ": " + e.getMessage(), e);
      }
    }
    return "jdbc:postgresql://localhost:" + postgresPort + "/" + name;
  }

  /**
   * Stops PostgreSQL, keeping its port and data, so tests can prove that services survive a
   * database outage. Pair with {@link #startPostgres()} in a {@code finally} block.
   */
  public void stopPostgres() {
    synchronized (postgresLock) {
      checkOpen();
      EmbeddedPostgres old = postgres;
      postgres = null;
      try {
        if (old != null) {
          old.close();
        }
      } catch (IOException e) {
        throw new DevStackException("cannot stop PostgreSQL on port " + postgresPort, e);
      }
    }
  }

  /**
   * Starts PostgreSQL again after {@link #stopPostgres()}, on the same port with the same data.
   * Does nothing when it is running.
   */
  public void startPostgres() {
    synchronized (postgresLock) {
      checkOpen();
      if (postgres == null) {
        startPostgresInternal();
      }
    }
  }

  /**
   * Stops PostgreSQL ({@code pg_ctl stop -m fast}, which ends open sessions) and starts it again on
   * the same port with the same data. Returns when it accepts connections again.
   */
  public void restartPostgres() {
    synchronized (postgresLock) {
      stopPostgres();
      startPostgresInternal();
    }
  }

  private void startPostgresInternal() {
    synchronized (postgresLock) {
      try {
        postgres =
            EmbeddedPostgres.builder()
                .setDataDirectory(dataDir.resolve("pg"))
                .setCleanDataDirectory(false)
                .setPort(postgresPort)
                .setServerConfig("timezone", POSTGRES_TIME_ZONE)
                .setServerConfig("max_connections", "200")
                // Durability is not what the dev stack tests: trade it for speed.
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .setPGStartupWait(Duration.ofSeconds(30))
                // The stack stops PostgreSQL itself, after the services that use it; zonky's own
                // JVM hook would stop it concurrently, under services that are still draining.
                .setRegisterShutdownHook(false)
                .start();
      } catch (IOException e) {
        throw new DevStackException(
            "cannot start PostgreSQL on port " + postgresPort + " in " + dataDir.resolve("pg"), e);
      }
    }
  }

  // ---------------------------------------------------------------- Kafka

  /**
   * Stops the Kafka node (broker and controller) and waits until it is down. Clients see the broker
   * disappear and keep retrying; {@link #startKafka()} brings it back on the same port. Does
   * nothing if Kafka is already stopped.
   */
  public void stopKafka() {
    synchronized (kafkaLock) {
      KafkaRaftServer k = kafka;
      if (k == null) {
        return;
      }
      long t0 = System.nanoTime();
      kafka = null;
      k.shutdown();
      k.awaitShutdown();
      log.info("Kafka stopped in {} ms", Duration.ofNanos(System.nanoTime() - t0).toMillis());
    }
  }

  /**
   * Starts Kafka again after {@link #stopKafka()}, on the same port and with the same data. Returns
   * when the broker serves requests. Does nothing if Kafka is running.
   */
  public void startKafka() {
    synchronized (kafkaLock) {
      checkOpen();
      if (kafka != null) {
        return;
      }
      long t0 = System.nanoTime();
      startKafkaInternal();
      log.info("Kafka started in {} ms", Duration.ofNanos(System.nanoTime() - t0).toMillis());
    }
  }

  private void startKafkaInternal() {
    synchronized (kafkaLock) {
      Path dir = dataDir.resolve("kafka");
      Path config = dataDir.resolve("kafka-server.properties");
      try {
        Files.createDirectories(dir);
        try (OutputStream out = Files.newOutputStream(config)) {
          kafkaProperties.store(out, "written by Carillon DevStack");
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + config, e);
      }
      // Format once; a persistent data directory (or a restart) keeps its cluster id and data.
      if (!Files.exists(dir.resolve("meta.properties"))) {
        formatKafkaStorage(config);
      }
      KafkaRaftServer server =
          new KafkaRaftServer(new KafkaConfig(kafkaProperties, false), Time.SYSTEM);
      try {
        server.startup();
      } catch (RuntimeException e) {
        server.shutdown();
        throw new DevStackException("cannot start Kafka on port " + kafkaPort, e);
      }
      kafka = server;
    }
  }

  private void formatKafkaStorage(Path config) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String[] args = {
      "format", "--cluster-id", Uuid.randomUuid().toString(), "--config", config.toString()
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

  private Properties kafkaProperties(int partitions) {
    String dir = dataDir.resolve("kafka").toString();
    Map<String, String> p =
        Map.ofEntries(
            Map.entry("process.roles", "broker,controller"),
            Map.entry("node.id", Integer.toString(KAFKA_NODE_ID)),
            Map.entry(
                "controller.quorum.voters", KAFKA_NODE_ID + "@localhost:" + kafkaControllerPort),
            Map.entry(
                "listeners",
                "PLAINTEXT://localhost:"
                    + kafkaPort
                    + ",CONTROLLER://localhost:"
                    + kafkaControllerPort),
            Map.entry("advertised.listeners", "PLAINTEXT://localhost:" + kafkaPort),
            Map.entry("controller.listener.names", "CONTROLLER"),
            Map.entry("inter.broker.listener.name", "PLAINTEXT"),
            Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"),
            Map.entry("log.dirs", dir),
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

  private static void redirectKafkaExits() {
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

  // ---------------------------------------------------------------- ZooKeeper

  /** Stops ZooKeeper; sessions are suspended until {@link #restartZooKeeper()}. */
  public void stopZooKeeper() {
    synchronized (zooKeeperLock) {
      TestingServer zk = zooKeeper;
      if (zk == null) {
        return;
      }
      try {
        zk.stop();
      } catch (IOException e) {
        throw new DevStackException("cannot stop ZooKeeper on port " + zooKeeperPort, e);
      }
    }
  }

  /**
   * Starts ZooKeeper again (stopping it first if it runs) on the same port with the same data.
   * Sessions that have not timed out meanwhile resume.
   */
  public void restartZooKeeper() {
    synchronized (zooKeeperLock) {
      checkOpen();
      try {
        zooKeeper.restart();
      } catch (Exception e) {
        throw new DevStackException("cannot restart ZooKeeper on port " + zooKeeperPort, e);
      }
    }
  }

  private void startZooKeeperInternal() {
    synchronized (zooKeeperLock) {
      Path dir = dataDir.resolve("zk");
      try {
        Files.createDirectories(dir);
        InstanceSpec spec =
            new InstanceSpec(
                dir.toFile(),
                zooKeeperPort,
                -1,
                -1,
                false, // the data directory belongs to the stack, which deletes it if temporary
                -1,
                ZK_TICK_MILLIS,
                -1,
                Map.of("maxSessionTimeout", "60000", "admin.enableServer", "false"),
                "127.0.0.1");
        zooKeeper = new TestingServer(spec, true);
      } catch (Exception e) {
        throw new DevStackException("cannot start ZooKeeper on port " + zooKeeperPort, e);
      }
    }
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Stops Kafka, PostgreSQL and ZooKeeper and deletes a temporary data directory. Idempotent. On
   * the {@linkplain #shared() shared} stack this does nothing: the shutdown hook closes it.
   */
  /**
   * Takes over the stopping of this stack from the JVM: {@link #start} registers a shutdown hook,
   * and JVM hooks run concurrently, so a program that must stop its own services first (the local
   * stack) removes the hook and calls {@link #close()} itself, last.
   */
  public void removeShutdownHook() {
    Thread hook = shutdownHook;
    if (hook != null && !isShared) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Already shutting down: the hook runs anyway; closing twice is harmless.
      }
    }
  }

  @Override
  public void close() {
    if (isShared) {
      log.debug("close() on the shared DevStack ignored; it stops when the JVM exits");
      return;
    }
    Thread hook = shutdownHook;
    if (hook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The hook is running or about to; closing twice is harmless.
      }
    }
    closeNow();
  }

  private void closeNow() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    List<Exception> failures = new ArrayList<>();
    // Kafka first: its clients are the noisiest when a server vanishes under them.
    synchronized (kafkaLock) {
      try {
        KafkaRaftServer k = kafka;
        kafka = null;
        if (k != null) {
          k.shutdown();
          k.awaitShutdown();
        }
      } catch (RuntimeException e) {
        failures.add(e);
      }
    }
    synchronized (postgresLock) {
      try {
        EmbeddedPostgres pg = postgres;
        postgres = null;
        if (pg != null) {
          pg.close();
        }
      } catch (IOException | RuntimeException e) {
        failures.add(e);
      }
    }
    synchronized (zooKeeperLock) {
      try {
        TestingServer zk = zooKeeper;
        zooKeeper = null;
        if (zk != null) {
          zk.close();
        }
      } catch (IOException | RuntimeException e) {
        failures.add(e);
      }
    }
    if (deleteDataDirOnClose) {
      try {
        deleteRecursively(dataDir);
      } catch (IOException e) {
        failures.add(e);
      }
    }
    failures.forEach(e -> log.warn("DevStack close: {}", e.toString()));
    log.info("DevStack stopped");
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new IllegalStateException("DevStack in " + dataDir + " is closed");
    }
  }

  @Override
  public String toString() {
    return "DevStack[jdbc="
        + jdbcUrl()
        + ", kafka="
        + kafkaBootstrap()
        + ", zk="
        + zkConnect()
        + ", dataDir="
        + dataDir
        + "]";
  }

  // ---------------------------------------------------------------- helpers

  private static int portOrFree(int port) throws IOException {
    if (port != 0) {
      return port;
    }
    // Pick the port once, so restarts can bind it again; another process could take it in the
    // meantime, which on a test machine is rare enough to accept.
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  private static java.util.function.Supplier<Duration> timed(Runnable action) {
    return () -> {
      long t0 = System.nanoTime();
      action.run();
      return Duration.ofNanos(System.nanoTime() - t0);
    };
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.delete(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null) {
              throw e;
            }
            Files.delete(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
