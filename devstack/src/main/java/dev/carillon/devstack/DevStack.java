package dev.carillon.devstack;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real PostgreSQL, Kafka (KRaft, one combined broker/controller node) and ZooKeeper, started
 * in-process on local ports, for tests and the local stack: a {@link PostgresNode}, a {@link
 * KafkaNode} and a {@link ZooKeeperNode} sharing one data directory.
 *
 * <p>Tests call {@link #shared()}, which starts the stack once per JVM and stops it from a shutdown
 * hook; they isolate themselves by database ({@link #createDatabase(String)}), topic or ZooKeeper
 * path, never by restarting servers. Fault hooks (each node's {@link ServerNode#stop() stop},
 * {@link ServerNode#start() start} and {@link ServerNode#restart() restart}, and the shorthands
 * {@link #stopKafka()}, {@link #restartPostgres()}, {@link #stopZooKeeper()} ...) keep ports and
 * data, so clients reconnect on their own; a test that uses one must undo it before it returns.
 *
 * <p><b>A persistent data directory</b> ({@link DevStackOptions#dataDir()}) belongs to one stack at
 * a time (a second one is refused), keeps the servers' data, and records their ports, which the
 * next stack on it reuses when they are free (see {@link #portChanges()}). A stack that died
 * without stopping (kill -9) leaves its PostgreSQL running, since PostgreSQL runs in a process of
 * its own; the next stack on the directory stops that server before it starts its own.
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
  // A fast shutdown of an orphaned server takes a second; past this it is killed.
  private static final Duration ORPHAN_SHUTDOWN_GRACE = Duration.ofSeconds(20);
  private static final Object SHARED_LOCK = new Object();
  private static volatile DevStack shared;

  private final StackDirectory directory;
  private final boolean isShared;
  private final StackPorts ports;
  private final PostgresNode postgres;
  private final KafkaNode kafka;
  private final ZooKeeperNode zooKeeper;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Thread shutdownHook;
  private volatile Duration startupTime = Duration.ZERO;

  private DevStack(
      StackDirectory directory, StackPorts ports, DevStackOptions options, boolean isShared) {
    this.directory = directory;
    this.isShared = isShared;
    this.ports = ports;
    Path dir = directory.path();
    this.postgres =
        new PostgresNode(
            dir.resolve("pg"),
            ports.postgres(),
            options.postgresPasswords(),
            options.synchronousCommit(),
            options.durablePostgres(),
            options.statementStats(),
            options.listenAddress());
    this.kafka =
        new KafkaNode(
            dir,
            ports.kafka(),
            ports.kafkaController(),
            options.kafkaPartitions(),
            options.kafkaSasl(),
            options.listenAddress());
    this.zooKeeper =
        new ZooKeeperNode(dir.resolve("zk"), ports.zooKeeper(), options.listenAddress());
  }

  /**
   * Starts PostgreSQL, Kafka and ZooKeeper and returns when all three accept connections.
   *
   * <p>The servers start in parallel. A shutdown hook closes the stack if the caller does not.
   *
   * @throws DevStackException if a server does not start (the others are stopped again), or the
   *     data directory belongs to another running stack
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
    DevStack stack = prepare(options, isShared);
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
          CompletableFuture.supplyAsync(timed(stack.postgres::start), starter);
      CompletableFuture<Duration> kafka =
          CompletableFuture.supplyAsync(timed(stack.kafka::start), starter);
      // ZooKeeper takes a fifth of a second: start it here rather than queue it behind the others.
      Duration zk = timed(stack.zooKeeper::start).get();
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

  /**
   * Takes the data directory, clears what a dead stack left on it, wipes it if asked and chooses
   * the ports; starts nothing yet.
   */
  private static DevStack prepare(DevStackOptions options, boolean isShared) {
    StackDirectory directory = StackDirectory.open(options.dataDir());
    try {
      Path dir = directory.path();
      // Before a wipe: the orphan still runs on the files the wipe would delete.
      OrphanPostmaster.stopIfRunning(dir.resolve("pg"), ORPHAN_SHUTDOWN_GRACE);
      if (options.fresh() && !directory.temporary()) {
        // The ports stay: a fresh start should not break the clients configured for this stack.
        directory.wipe(Set.of(StackPorts.FILE));
      }
      StackPorts ports = StackPorts.assign(dir, options);
      return new DevStack(directory, ports, options, isShared);
    } catch (IOException | RuntimeException e) {
      try {
        directory.close();
      } catch (IOException closing) {
        e.addSuppressed(closing);
      }
      if (e instanceof DevStackException dse) {
        throw dse;
      }
      throw new DevStackException("cannot prepare data directory " + directory.path(), e);
    }
  }

  // ---------------------------------------------------------------- the nodes

  /** The PostgreSQL server. */
  public PostgresNode postgres() {
    return postgres;
  }

  /** The Kafka node (broker and controller). */
  public KafkaNode kafka() {
    return kafka;
  }

  /** The ZooKeeper server. */
  public ZooKeeperNode zooKeeper() {
    return zooKeeper;
  }

  // ---------------------------------------------------------------- accessors

  /** JDBC URL of the {@code postgres} maintenance database; prefer {@link #createDatabase}. */
  public String jdbcUrl() {
    return postgres.jdbcUrl("postgres");
  }

  /** PostgreSQL user name ({@value #DB_USER}). */
  public String dbUser() {
    return DB_USER;
  }

  /**
   * PostgreSQL password ({@value #DB_PASSWORD}; the server does not check it for the superuser,
   * even with {@link DevStackOptions#postgresPasswords()}).
   */
  public String dbPassword() {
    return DB_PASSWORD;
  }

  /** PostgreSQL port. */
  public int postgresPort() {
    return postgres.port();
  }

  /** Kafka {@code bootstrap.servers}, e.g. {@code localhost:40123}. */
  public String kafkaBootstrap() {
    return kafka.bootstrap();
  }

  /** ZooKeeper connect string, e.g. {@code 127.0.0.1:40125}. */
  public String zkConnect() {
    return zooKeeper.connectString();
  }

  /** Directory holding {@code pg/}, {@code kafka/} and {@code zk/}. */
  public Path dataDir() {
    return directory.path();
  }

  /** Wall time {@link #start} took, for reports. */
  public Duration startupTime() {
    return startupTime;
  }

  /**
   * Ports recorded in the data directory by an earlier stack that this one could not keep because
   * another program holds them, one sentence each (empty when every server kept its port).
   */
  public List<String> portChanges() {
    return ports.changes();
  }

  /**
   * Whether the Kafka broker is running (false between {@link #stopKafka} and {@link #startKafka}).
   */
  public boolean isKafkaRunning() {
    return kafka.isRunning();
  }

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
    return postgres.createDatabase(prefix);
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
    kafka.createTopic(name, partitions);
  }

  /**
   * Creates a one-partition compacted topic, as the create-topics step makes the config topic, and
   * waits until it has a leader: services check their topics at start and create none.
   */
  public void createCompactedTopic(String name) {
    kafka.createCompactedTopic(name);
  }

  // ---------------------------------------------------------------- fault hooks (shorthands)

  /**
   * Stops PostgreSQL, keeping its port and data, so tests can prove that services survive a
   * database outage. Pair with {@link #startPostgres()} in a {@code finally} block.
   */
  public void stopPostgres() {
    postgres.stop();
  }

  /**
   * Starts PostgreSQL again after {@link #stopPostgres()}, on the same port with the same data.
   * Does nothing when it is running.
   */
  public void startPostgres() {
    postgres.start();
  }

  /**
   * Stops PostgreSQL ({@code pg_ctl stop -m fast}, which ends open sessions) and starts it again on
   * the same port with the same data. Returns when it accepts connections again.
   */
  public void restartPostgres() {
    postgres.restart();
  }

  /**
   * Crashes PostgreSQL: SIGKILL to its postmaster (see {@link PostgresNode#kill()}). Pair with
   * {@link #startPostgres()}, which brings it back through crash recovery, in a {@code finally}
   * block.
   */
  public void killPostgres() {
    postgres.kill();
  }

  /**
   * Makes PostgreSQL hang: every one of its processes SIGSTOPped (see {@link
   * PostgresNode#freeze()}). Pair with {@link #thawPostgres()} in a {@code finally} block.
   */
  public void freezePostgres() {
    postgres.freeze();
  }

  /** Resumes PostgreSQL after {@link #freezePostgres()} (SIGCONT). */
  public void thawPostgres() {
    postgres.thaw();
  }

  /**
   * Stops the Kafka node (broker and controller) and waits until it is down. Clients see the broker
   * disappear and keep retrying; {@link #startKafka()} brings it back on the same port. Does
   * nothing if Kafka is already stopped.
   */
  public void stopKafka() {
    kafka.stop();
  }

  /**
   * Starts Kafka again after {@link #stopKafka()}, on the same port and with the same data. Returns
   * when the broker serves requests. Does nothing if Kafka is running.
   */
  public void startKafka() {
    kafka.start();
  }

  /** Stops ZooKeeper; sessions are suspended until {@link #restartZooKeeper()}. */
  public void stopZooKeeper() {
    zooKeeper.stop();
  }

  /** Starts ZooKeeper again after {@link #stopZooKeeper()}; does nothing when it runs. */
  public void startZooKeeper() {
    zooKeeper.start();
  }

  /**
   * Starts ZooKeeper again (stopping it first if it runs) on the same port with the same data.
   * Sessions that have not timed out meanwhile resume.
   */
  public void restartZooKeeper() {
    zooKeeper.restart();
  }

  // ---------------------------------------------------------------- lifecycle

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

  /**
   * Stops Kafka, PostgreSQL and ZooKeeper, releases the data directory and deletes it if it is
   * temporary. Idempotent. On the {@linkplain #shared() shared} stack this does nothing: the
   * shutdown hook closes it.
   */
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
    // Kafka first: its clients are the noisiest when a server vanishes under them. The directory
    // last: its lock says that no server runs on it any more.
    for (ServerNode node : List.of(kafka, postgres, zooKeeper)) {
      try {
        node.close();
      } catch (RuntimeException e) {
        failures.add(e);
      }
    }
    try {
      directory.close();
    } catch (IOException e) {
      failures.add(e);
    }
    failures.forEach(e -> log.warn("DevStack close: {}", e.toString()));
    log.info("DevStack stopped");
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
        + dataDir()
        + "]";
  }

  private static Supplier<Duration> timed(Runnable action) {
    return () -> {
      long t0 = System.nanoTime();
      action.run();
      return Duration.ofNanos(System.nanoTime() - t0);
    };
  }
}
