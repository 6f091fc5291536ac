package dev.carillon.config;

import dev.carillon.election.ZkDigest;
import dev.carillon.http.HttpServerSettings;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.model.Durations;
import dev.carillon.model.tuning.ConfigSigner;
import dev.carillon.store.DbSettings;
import dev.carillon.store.Schema;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The settings every service shares, read from {@link Config} and validated at start.
 *
 * <table>
 *   <caption>keys</caption>
 *   <tr><th>key</th><th>environment</th><th>default</th></tr>
 *   <tr><td>db.url</td><td>CARILLON_DB_URL</td><td>required</td></tr>
 *   <tr><td>db.user</td><td>CARILLON_DB_USER</td><td>carillon</td></tr>
 *   <tr><td>db.password</td><td>CARILLON_DB_PASSWORD or CARILLON_DB_PASSWORD_FILE</td><td>empty</td></tr>
 *   <tr><td>db.pool-size</td><td>CARILLON_DB_POOL_SIZE</td><td>8</td></tr>
 *   <tr><td>db.connection-timeout</td><td>CARILLON_DB_CONNECTION_TIMEOUT</td><td>10s</td></tr>
 *   <tr><td>db.migrate</td><td>CARILLON_DB_MIGRATE</td><td>false: only check the schema</td></tr>
 *   <tr><td>db.role-prefix</td><td>CARILLON_DB_ROLE_PREFIX</td><td>carillon_</td></tr>
 *   <tr><td>db.connect-timeout</td><td>CARILLON_DB_CONNECT_TIMEOUT</td><td>5s</td></tr>
 *   <tr><td>db.socket-timeout</td><td>CARILLON_DB_SOCKET_TIMEOUT</td><td>20s</td></tr>
 *   <tr><td>db.statement-timeout</td><td>CARILLON_DB_STATEMENT_TIMEOUT</td><td>15s</td></tr>
 *   <tr><td>kafka.bootstrap</td><td>CARILLON_KAFKA_BOOTSTRAP</td><td>required</td></tr>
 *   <tr><td>kafka.properties.*</td><td>CARILLON_KAFKA_PROPERTIES_*</td><td>client pass-through (SASL/TLS)</td></tr>
 *   <tr><td>kafka.instances-partitions</td><td>CARILLON_KAFKA_INSTANCES_PARTITIONS</td><td>6</td></tr>
 *   <tr><td>zk.connect</td><td>CARILLON_ZK_CONNECT</td><td>required</td></tr>
 *   <tr><td>zk.session-timeout</td><td>CARILLON_ZK_SESSION_TIMEOUT</td><td>15s</td></tr>
 *   <tr><td>zk.digest-user</td><td>CARILLON_ZK_DIGEST_USER</td><td>none: open ACLs</td></tr>
 *   <tr><td>zk.digest-password</td><td>CARILLON_ZK_DIGEST_PASSWORD_FILE</td><td>none</td></tr>
 *   <tr><td>admin.port</td><td>CARILLON_ADMIN_PORT</td><td>per service</td></tr>
 *   <tr><td>admin.bind-address</td><td>CARILLON_ADMIN_BIND_ADDRESS</td><td>0.0.0.0</td></tr>
 *   <tr><td>admin.idle-timeout</td><td>CARILLON_ADMIN_IDLE_TIMEOUT</td><td>30s</td></tr>
 *   <tr><td>admin.header-timeout</td><td>CARILLON_ADMIN_HEADER_TIMEOUT</td><td>5s</td></tr>
 *   <tr><td>admin.max-connections</td><td>CARILLON_ADMIN_MAX_CONNECTIONS</td><td>256</td></tr>
 *   <tr><td>instance.id</td><td>CARILLON_INSTANCE_ID</td><td>host:pid</td></tr>
 *   <tr><td>clock.offset</td><td>CARILLON_CLOCK_OFFSET</td><td>0s (fault injection only)</td></tr>
 * </table>
 *
 * @param clockOffset added to this process's clock: a seam for fault injection (a host whose clock
 *     is skewed), zero in production
 */
public record CommonSettings(
    DbSettings db,
    KafkaSettings kafka,
    int instancePartitions,
    String zkConnect,
    Duration zkSessionTimeout,
    Optional<ZkDigest> zkDigest,
    HttpServerSettings admin,
    String instanceId,
    Duration clockOffset) {

  public static final Duration DEFAULT_ZK_SESSION_TIMEOUT = Duration.ofSeconds(15);

  /**
   * Every key {@link #from} reads, in the order of the table above; {@code kafka.properties.*} is a
   * prefix. Deploy files and the operator guide are checked against this list (tests hold it to
   * what {@link #from} actually reads).
   */
  public static final List<String> KEYS =
      List.of(
          "db.url",
          "db.user",
          "db.password",
          "db.pool-size",
          "db.connection-timeout",
          "db.migrate",
          "db.role-prefix",
          "db.connect-timeout",
          "db.socket-timeout",
          "db.statement-timeout",
          "kafka.bootstrap",
          "kafka.properties.*",
          "kafka.instances-partitions",
          "zk.connect",
          "zk.session-timeout",
          "zk.digest-user",
          "zk.digest-password",
          "admin.port",
          "admin.bind-address",
          "admin.idle-timeout",
          "admin.header-timeout",
          "admin.max-connections",
          "instance.id",
          "clock.offset");

  /**
   * {@link #KEYS} without the {@code zk.*} keys and {@code clock.offset}, in the same order: what a
   * service that neither joins ZooKeeper nor reads the clock offset (the worker) reads of the
   * shared settings before its own keys.
   */
  public static final List<String> KEYS_WITHOUT_ZK_OR_CLOCK =
      KEYS.stream().filter(k -> !k.startsWith("zk.") && !k.equals("clock.offset")).toList();

  /**
   * @throws ConfigException naming the key, its source and the value when one is missing or wrong
   */
  public static CommonSettings from(Config c, int defaultAdminPort) {
    DbSettings db = db(c);
    KafkaSettings kafka = kafka(c);
    return new CommonSettings(
        db,
        kafka,
        instancePartitions(c),
        c.require("zk.connect"),
        c.duration(
            "zk.session-timeout",
            DEFAULT_ZK_SESSION_TIMEOUT,
            Duration.ofSeconds(2),
            Duration.ofMinutes(5)),
        zkDigest(c),
        HttpServerSettings.admin(c, c.integer("admin.port", defaultAdminPort, 0, 65535)),
        c.string("instance.id", ManagementFactory.getRuntimeMXBean().getName()),
        clockOffset(c));
  }

  /**
   * The {@code clock.offset} key: how far this process's clock is moved, for fault injection (a
   * host whose clock runs fast or slow). Zero unless set.
   *
   * @throws ConfigException naming the key and value when it is not a duration within a day
   */
  public static Duration clockOffset(Config c) {
    Optional<String> raw = c.optional("clock.offset");
    if (raw.isEmpty()) {
      return Duration.ZERO;
    }
    String text = raw.get().strip();
    boolean negative = text.startsWith("-");
    Duration magnitude =
        Durations.tryParse(negative ? text.substring(1) : text)
            .orElseThrow(
                () ->
                    new ConfigException(
                        "configuration clock.offset must be a duration such as 30s or -30s, was '"
                            + raw.get()
                            + "'"));
    if (magnitude.compareTo(Duration.ofDays(1)) > 0) {
      throw new ConfigException(
          "configuration clock.offset must be within a day either way, was '" + raw.get() + "'");
    }
    return negative ? magnitude.negated() : magnitude;
  }

  /** {@code clock} moved by {@link #clockOffset()}. */
  public Clock offsetClock(Clock clock) {
    return clockOffset.isZero() ? clock : Clock.offset(clock, clockOffset);
  }

  /** The admin port (0: any free port). */
  public int adminPort() {
    return admin.port();
  }

  /**
   * The {@code db.*} keys, for services that need the database but not all of this record.
   *
   * @throws ConfigException naming the key, its source and the value when one is missing or wrong
   */
  public static DbSettings db(Config c) {
    try {
      return new DbSettings(
          c.require("db.url"),
          c.string("db.user", "carillon"),
          c.string("db.password", ""),
          c.integer("db.pool-size", DbSettings.DEFAULT_POOL_SIZE, 1, 200),
          c.duration(
              "db.connection-timeout",
              DbSettings.DEFAULT_CONNECTION_TIMEOUT,
              Duration.ofMillis(250),
              Duration.ofMinutes(5)),
          c.duration(
              "db.connect-timeout",
              DbSettings.DEFAULT_CONNECT_TIMEOUT,
              Duration.ofSeconds(1),
              Duration.ofMinutes(5)),
          c.duration(
              "db.socket-timeout",
              DbSettings.DEFAULT_SOCKET_TIMEOUT,
              Duration.ofSeconds(1),
              Duration.ofHours(1)),
          c.duration(
              "db.statement-timeout",
              DbSettings.DEFAULT_STATEMENT_TIMEOUT,
              Duration.ofMillis(100),
              Duration.ofHours(1)),
          c.bool("db.migrate", false),
          c.string("db.role-prefix", Schema.DEFAULT_ROLE_PREFIX));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e);
    }
  }

  /** The key of the config-topic signing secret (a file of secrets, one per line). */
  public static final String SIGNING_SECRET = "config.signing-secret";

  /**
   * The config-topic signer from {@code config.signing-secret}, if set: writers sign with it, and
   * the retry service then applies only records it verifies (see {@link ConfigSigner}).
   *
   * @throws ConfigException when the secret file holds no usable secret
   */
  public static Optional<ConfigSigner> configSigner(Config c) {
    Optional<String> text = c.optional(SIGNING_SECRET);
    try {
      return text.map(ConfigSigner::fromSecretFile);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e);
    }
  }

  /**
   * {@code zk.digest-user} and {@code zk.digest-password}: both or neither.
   *
   * @throws ConfigException when only one is set or the user is malformed
   */
  public static Optional<ZkDigest> zkDigest(Config c) {
    Optional<String> user = c.optional("zk.digest-user");
    Optional<String> password = c.optional("zk.digest-password");
    if (user.isPresent() != password.isPresent()) {
      throw new ConfigException(
          "zk.digest-user and zk.digest-password go together: "
              + (user.isPresent() ? "zk.digest-password" : "zk.digest-user")
              + " is missing (set it in "
              + Config.envName(user.isPresent() ? "zk.digest-password" : "zk.digest-user")
              + (user.isPresent() ? "_FILE" : "")
              + ")");
    }
    try {
      return user.map(u -> new ZkDigest(u, password.get()));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e);
    }
  }

  /**
   * {@code kafka.instances-partitions}: the partitions the create-topics step gives the instances
   * topic, and the fewest each service accepts at start.
   *
   * @throws ConfigException naming the key and value when it is out of range
   */
  public static int instancePartitions(Config c) {
    return c.integer(
        "kafka.instances-partitions", TopicAdmin.DEFAULT_INSTANCE_PARTITIONS, 1, 10_000);
  }

  /**
   * The {@code kafka.*} keys.
   *
   * @throws ConfigException naming the key and the problem
   */
  public static KafkaSettings kafka(Config c) {
    try {
      return new KafkaSettings(c.require("kafka.bootstrap"), c.withPrefix("kafka.properties."));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("kafka: " + e.getMessage());
    }
  }

  /** One line for the startup log; secrets masked. */
  public String describe() {
    return "db="
        + db
        + " kafka="
        + kafka
        + " instancePartitions="
        + instancePartitions
        + " zk="
        + zkConnect
        + " zkSessionTimeout="
        + zkSessionTimeout
        + " zkDigest="
        + zkDigest.map(ZkDigest::toString).orElse("<none: open ACLs>")
        + " admin="
        + admin.bindAddress()
        + ":"
        + admin.port()
        + " instanceId="
        + instanceId
        + (clockOffset.isZero() ? "" : " clockOffset=" + clockOffset + " (fault injection)");
  }
}
