package dev.carillon.devstack;

import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How to start a {@link DevStack}.
 *
 * <p>Every port may be {@code 0}, meaning "the port recorded in the data directory by the last
 * stack there, if it is free, else a free port", chosen once at start. The chosen port is then kept
 * for the life of the stack, so {@link DevStack#stopKafka()}/{@link DevStack#startKafka()} and
 * {@link DevStack#restartPostgres()} come back on the same address and clients reconnect by
 * themselves, and recorded for the next stack on the same directory.
 *
 * @param dataDir where PostgreSQL, Kafka and ZooKeeper keep their data ({@code pg/}, {@code
 *     kafka/}, {@code zk/} below it); data persists between runs. {@code null} means a fresh
 *     temporary directory under {@code java.io.tmpdir} that is deleted on close.
 * @param fresh wipe {@code dataDir} before starting, keeping only the recorded ports (ignored for
 *     the temporary directory, which is always fresh)
 * @param postgresPort PostgreSQL port, {@code 0} for a free port
 * @param kafkaPort Kafka broker (client) port, {@code 0} for a free port
 * @param kafkaControllerPort Kafka KRaft controller port, {@code 0} for a free port
 * @param zooKeeperPort ZooKeeper client port, {@code 0} for a free port
 * @param kafkaPartitions partitions of topics that Kafka creates automatically on first use
 * @param kafkaSasl Kafka's client listener takes only SASL/SCRAM-SHA-512 clients and authorizes
 *     every request with the standard KRaft authorizer (no ACL, no access; a super user {@code
 *     admin} for setup, see {@link KafkaNode#superUserProperties()}); topics are not created
 *     automatically
 * @param postgresPasswords PostgreSQL checks passwords (SCRAM-SHA-256) of every user but the
 *     superuser {@value DevStack#DB_USER}, which keeps trust authentication for the stack's own use
 * @param synchronousCommit PostgreSQL's {@code synchronous_commit}: off by default (faster, and
 *     nothing the tests check depends on surviving an operating-system crash); on for a stack whose
 *     PostgreSQL a test {@linkplain PostgresNode#kill() kills}, so that no acknowledged commit is
 *     lost with it
 * @param durablePostgres run PostgreSQL with {@code synchronous_commit} and {@code
 *     full_page_writes} on, as production does; off by default (see {@link PostgresNode})
 * @param statementStats load PostgreSQL's {@code pg_stat_statements} (what each statement cost; the
 *     bench reads it to say where PostgreSQL's time went); off by default
 * @param listenAddress an IP address the servers listen on and hand to clients instead of the
 *     loopback interface, or {@code null} for loopback only. For clients in other network
 *     namespaces (the fault suite's partitions): the address must be on this host (e.g. on {@code
 *     lo}), and PostgreSQL then trusts clients on the host's directly connected subnets ({@code
 *     samenet}).
 */
public record DevStackOptions(
    Path dataDir,
    boolean fresh,
    int postgresPort,
    int kafkaPort,
    int kafkaControllerPort,
    int zooKeeperPort,
    int kafkaPartitions,
    boolean kafkaSasl,
    boolean postgresPasswords,
    boolean synchronousCommit,
    boolean durablePostgres,
    boolean statementStats,
    String listenAddress) {

  /** Partitions of auto-created topics unless told otherwise: enough to exercise rebalancing. */
  public static final int DEFAULT_KAFKA_PARTITIONS = 4;

  public DevStackOptions {
    checkPort("postgresPort", postgresPort);
    checkPort("kafkaPort", kafkaPort);
    checkPort("kafkaControllerPort", kafkaControllerPort);
    checkPort("zooKeeperPort", zooKeeperPort);
    if (kafkaPartitions < 1) {
      throw new IllegalArgumentException(
          "kafkaPartitions must be at least 1, was " + kafkaPartitions);
    }
    if (dataDir != null) {
      dataDir = dataDir.toAbsolutePath().normalize();
    }
    if (listenAddress != null && !IP_LITERAL.matcher(listenAddress).matches()) {
      throw new IllegalArgumentException(
          "listenAddress must be an IP address such as 10.77.0.1, was '" + listenAddress + "'");
    }
  }

  private static final Pattern IP_LITERAL =
      Pattern.compile("(\\d{1,3}\\.){3}\\d{1,3}|[0-9a-fA-F:]*:[0-9a-fA-F:]*");

  /** A throw-away stack: temporary data directory, free ports, default partitions. */
  public static DevStackOptions defaults() {
    return new DevStackOptions(
        null, false, 0, 0, 0, 0, DEFAULT_KAFKA_PARTITIONS, false, false, false, false, false, null);
  }

  /** The data directory, if data should persist between runs. */
  public Optional<Path> persistentDataDir() {
    return Optional.ofNullable(dataDir);
  }

  /** A copy that keeps its data in {@code dir} (persisting between runs). */
  public DevStackOptions withDataDir(Path dir) {
    return new DevStackOptions(
        dir,
        fresh,
        postgresPort,
        kafkaPort,
        kafkaControllerPort,
        zooKeeperPort,
        kafkaPartitions,
        kafkaSasl,
        postgresPasswords,
        synchronousCommit,
        durablePostgres,
        statementStats,
        listenAddress);
  }

  /** A copy that wipes the data directory first when {@code wipe} is true. */
  public DevStackOptions withFresh(boolean wipe) {
    return new DevStackOptions(
        dataDir,
        wipe,
        postgresPort,
        kafkaPort,
        kafkaControllerPort,
        zooKeeperPort,
        kafkaPartitions,
        kafkaSasl,
        postgresPasswords,
        synchronousCommit,
        durablePostgres,
        statementStats,
        listenAddress);
  }

  /** A copy with fixed ports ({@code 0} keeps "free port"). */
  public DevStackOptions withPorts(int postgres, int kafka, int kafkaController, int zooKeeper) {
    return new DevStackOptions(
        dataDir,
        fresh,
        postgres,
        kafka,
        kafkaController,
        zooKeeper,
        kafkaPartitions,
        kafkaSasl,
        postgresPasswords,
        synchronousCommit,
        durablePostgres,
        statementStats,
        listenAddress);
  }

  /** A copy whose auto-created Kafka topics get {@code partitions} partitions. */
  public DevStackOptions withKafkaPartitions(int partitions) {
    return new DevStackOptions(
        dataDir,
        fresh,
        postgresPort,
        kafkaPort,
        kafkaControllerPort,
        zooKeeperPort,
        partitions,
        kafkaSasl,
        postgresPasswords,
        synchronousCommit,
        durablePostgres,
        statementStats,
        listenAddress);
  }

  /**
   * A copy whose Kafka takes only SASL/SCRAM clients and authorizes them by ACL ({@code true}), or
   * plaintext clients without authorization.
   */
  public DevStackOptions withKafkaSasl(boolean sasl) {
    return new DevStackOptions(
        dataDir,
        fresh,
        postgresPort,
        kafkaPort,
        kafkaControllerPort,
        zooKeeperPort,
        kafkaPartitions,
        sasl,
        postgresPasswords,
        synchronousCommit,
        durablePostgres,
        statementStats,
        listenAddress);
  }

  /** A copy whose PostgreSQL checks the passwords of every user but the superuser. */
  public DevStackOptions withPostgresPasswords(boolean check) {
    return new DevStackOptions(
        dataDir,
        fresh,
        postgresPort,
        kafkaPort,
        kafkaControllerPort,
        zooKeeperPort,
        kafkaPartitions,
        kafkaSasl,
        check,
        synchronousCommit,
        durablePostgres,
        statementStats,
        listenAddress);
  }

  /** A copy whose PostgreSQL runs with {@code synchronous_commit} {@code on} when {@code on}. */
  public DevStackOptions withSynchronousCommit(boolean on) {
    return new DevStackOptions(
        dataDir,
        fresh,
        postgresPort,
        kafkaPort,
        kafkaControllerPort,
        zooKeeperPort,
        kafkaPartitions,
        kafkaSasl,
        postgresPasswords,
        on,
        durablePostgres,
        statementStats,
        listenAddress);
  }

  /**
   * A copy whose PostgreSQL runs with {@code synchronous_commit} and {@code full_page_writes} on
   * ({@code durable}) or off (the default): benchmarks measure both.
   */
  public DevStackOptions withDurablePostgres(boolean durable) {
    return new DevStackOptions(
        dataDir,
        fresh,
        postgresPort,
        kafkaPort,
        kafkaControllerPort,
        zooKeeperPort,
        kafkaPartitions,
        kafkaSasl,
        postgresPasswords,
        synchronousCommit,
        durable,
        statementStats,
        listenAddress);
  }

  /** A copy whose PostgreSQL loads {@code pg_stat_statements} when {@code on}. */
  public DevStackOptions withStatementStats(boolean on) {
    return new DevStackOptions(
        dataDir,
        fresh,
        postgresPort,
        kafkaPort,
        kafkaControllerPort,
        zooKeeperPort,
        kafkaPartitions,
        kafkaSasl,
        postgresPasswords,
        synchronousCommit,
        durablePostgres,
        on,
        listenAddress);
  }

  /** A copy whose servers listen on {@code address} (an IP literal) instead of loopback. */
  public DevStackOptions withListenAddress(String address) {
    return new DevStackOptions(
        dataDir,
        fresh,
        postgresPort,
        kafkaPort,
        kafkaControllerPort,
        zooKeeperPort,
        kafkaPartitions,
        kafkaSasl,
        postgresPasswords,
        synchronousCommit,
        durablePostgres,
        statementStats,
        address);
  }

  private static void checkPort(String field, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(field + " must be 0 (free port) or 1-65535, was " + port);
    }
  }
}
