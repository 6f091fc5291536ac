package dev.carillon.config;

import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.store.Database;
import dev.carillon.store.DbRole;
import dev.carillon.store.DbSettings;
import dev.carillon.store.Schema;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deploy steps every service image runs as a one-shot before the services start: {@code
 * migrate} (the schema and the service roles, with a user that may run DDL) and {@code
 * create-topics} (the topics with the configured partitions, with a Kafka principal that may create
 * them). Services then run with their own, smaller rights and only check what these steps made.
 *
 * <table>
 *   <caption>keys of the steps (besides db.url, db.user, db.password, db.connection-timeout,
 *   kafka.bootstrap and kafka.properties.* of {@link CommonSettings})</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>db.role-prefix</td><td>carillon_</td><td>prefix of the roles migrate creates</td></tr>
 *   <tr><td>roles.&lt;role&gt;.password</td><td>none</td><td>migrate lets role
 *       trigger, worker, retry, api or readonly log in with this password</td></tr>
 *   <tr><td>kafka.instances-partitions</td><td>6</td><td>partitions of the instances topic</td></tr>
 *   <tr><td>kafka.replication</td><td>1</td><td>replication factor of both topics</td></tr>
 * </table>
 */
public final class Setup {
  private static final Logger log = LoggerFactory.getLogger(Setup.class);

  /** Every key {@link #migrate} reads. */
  public static final List<String> MIGRATE_KEYS;

  /** Every key {@link #createTopics} reads. */
  public static final List<String> TOPIC_KEYS =
      List.of(
          "kafka.bootstrap",
          "kafka.properties.*",
          "kafka.instances-partitions",
          "kafka.replication");

  static {
    List<String> keys =
        new ArrayList<>(
            List.of(
                "db.url",
                "db.user",
                "db.password",
                "db.pool-size",
                "db.connection-timeout",
                "db.migrate",
                "db.role-prefix"));
    for (DbRole role : DbRole.values()) {
      keys.add(passwordKey(role));
    }
    MIGRATE_KEYS = List.copyOf(keys);
  }

  private Setup() {}

  /** The key of the password that lets {@code role} log in, e.g. {@code roles.worker.password}. */
  public static String passwordKey(DbRole role) {
    return "roles." + role.key() + ".password";
  }

  /**
   * Applies the pending migrations (creating the service roles if missing) and lets each role whose
   * password is configured log in with it.
   *
   * @return how many migrations were applied
   * @throws ConfigException when a setting is missing or wrong
   */
  public static int migrate(Config c) {
    DbSettings db = CommonSettings.db(c).withMigrate(true);
    Map<DbRole, String> passwords = new EnumMap<>(DbRole.class);
    for (DbRole role : DbRole.values()) {
      Optional<String> password = c.optional(passwordKey(role));
      password.ifPresent(p -> passwords.put(role, p));
    }
    log.info(
        "Migrating {} as {} (role prefix {}); logins for {}",
        db.maskedUrl(),
        db.user(),
        db.rolePrefix(),
        passwords.keySet());
    int applied = Schema.migrate(db);
    try (Database database = Database.connect(db.withPoolSize(1), null)) {
      passwords.forEach(
          (role, password) ->
              Schema.enableLogin(database.dataSource(), role.roleName(db.rolePrefix()), password));
    }
    log.info("Migrated: {} migration(s) applied, {} role(s) may log in", applied, passwords.size());
    return applied;
  }

  /**
   * Creates the instances topic with {@code kafka.instances-partitions} partitions and the
   * compacted config topic; topics that exist are left as they are (and then checked like a service
   * checks them, so a too small topic is reported here first).
   *
   * @throws ConfigException when a setting is missing or wrong
   * @throws TopicAdmin.TopicException when an existing topic is too small or not compacted
   */
  public static void createTopics(Config c) {
    KafkaSettings kafka = CommonSettings.kafka(c);
    int partitions = CommonSettings.instancePartitions(c);
    short replication = (short) c.integer("kafka.replication", 1, 1, 7);
    TopicAdmin.ensureTopics(kafka, partitions, replication);
    TopicAdmin.require(
        kafka,
        List.of(
            new TopicAdmin.Need(dev.carillon.kafka.Topics.INSTANCES, partitions, false),
            new TopicAdmin.Need(dev.carillon.kafka.Topics.CONFIG, 1, true)));
  }
}
