package dev.carillon.config;

import dev.carillon.kafka.KafkaSettings;
import dev.carillon.store.DbSettings;
import java.lang.management.ManagementFactory;
import java.time.Duration;

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
 *   <tr><td>kafka.bootstrap</td><td>CARILLON_KAFKA_BOOTSTRAP</td><td>required</td></tr>
 *   <tr><td>kafka.properties.*</td><td>CARILLON_KAFKA_PROPERTIES_*</td><td>client pass-through (SASL/TLS)</td></tr>
 *   <tr><td>zk.connect</td><td>CARILLON_ZK_CONNECT</td><td>required</td></tr>
 *   <tr><td>zk.session-timeout</td><td>CARILLON_ZK_SESSION_TIMEOUT</td><td>15s</td></tr>
 *   <tr><td>admin.port</td><td>CARILLON_ADMIN_PORT</td><td>per service</td></tr>
 *   <tr><td>instance.id</td><td>CARILLON_INSTANCE_ID</td><td>host:pid</td></tr>
 * </table>
 */
public record CommonSettings(
    DbSettings db,
    KafkaSettings kafka,
    String zkConnect,
    Duration zkSessionTimeout,
    int adminPort,
    String instanceId) {

  public static final Duration DEFAULT_ZK_SESSION_TIMEOUT = Duration.ofSeconds(15);

  /**
   * @throws ConfigException naming the key, its source and the value when one is missing or wrong
   */
  public static CommonSettings from(Config c, int defaultAdminPort) {
    DbSettings db;
    try {
      db =
          new DbSettings(
              c.require("db.url"),
              c.string("db.user", "carillon"),
              c.string("db.password", ""),
              c.integer("db.pool-size", DbSettings.DEFAULT_POOL_SIZE, 1, 200));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    KafkaSettings kafka;
    try {
      kafka = new KafkaSettings(c.require("kafka.bootstrap"), c.withPrefix("kafka.properties."));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("kafka: " + e.getMessage());
    }
    return new CommonSettings(
        db,
        kafka,
        c.require("zk.connect"),
        c.duration(
            "zk.session-timeout",
            DEFAULT_ZK_SESSION_TIMEOUT,
            Duration.ofSeconds(2),
            Duration.ofMinutes(5)),
        c.integer("admin.port", defaultAdminPort, 0, 65535),
        c.string("instance.id", ManagementFactory.getRuntimeMXBean().getName()));
  }

  /** One line for the startup log; secrets masked. */
  public String describe() {
    return "db="
        + db
        + " kafka="
        + kafka
        + " zk="
        + zkConnect
        + " zkSessionTimeout="
        + zkSessionTimeout
        + " adminPort="
        + adminPort
        + " instanceId="
        + instanceId;
  }
}
