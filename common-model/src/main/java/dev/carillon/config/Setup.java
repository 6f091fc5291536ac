package dev.carillon.config;

import dev.carillon.kafka.CarillonAcls;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.kafka.Topics;
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
 *   <tr><td>kafka.acl.trigger, .worker, .retry, .operator</td><td>none</td><td>principals
 *       ({@code User:name}); when set, create-topics also creates {@link CarillonAcls}</td></tr>
 *   <tr><td>kafka.acl.workers-write</td><td>false</td><td>workers may write the instances
 *       topic (only with {@code worker.republish-released=true})</td></tr>
 *   <tr><td>worker.group</td><td>carillon-workers</td><td>the group the worker ACL names</td></tr>
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
          "kafka.replication",
          "kafka.acl.trigger",
          "kafka.acl.worker",
          "kafka.acl.retry",
          "kafka.acl.operator",
          "kafka.acl.workers-write",
          "worker.group");

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
            new TopicAdmin.Need(Topics.INSTANCES, partitions, false),
            new TopicAdmin.Need(Topics.CONFIG, 1, true)));
    Optional<CarillonAcls.Principals> principals = principals(c);
    if (principals.isPresent()) {
      TopicAdmin.createAcls(
          kafka,
          CarillonAcls.bindings(
              principals.get(),
              Topics.INSTANCES,
              Topics.CONFIG,
              c.string("worker.group", CarillonAcls.WORKER_GROUP)));
    }
  }

  /**
   * The {@code kafka.acl.*} principals: all four or none.
   *
   * @throws ConfigException naming the keys missing or the malformed value
   */
  static Optional<CarillonAcls.Principals> principals(Config c) {
    List<String> keys =
        List.of("kafka.acl.trigger", "kafka.acl.worker", "kafka.acl.retry", "kafka.acl.operator");
    List<Optional<String>> values = keys.stream().map(c::optional).toList();
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      if (values.get(i).isEmpty()) {
        missing.add(keys.get(i));
      }
    }
    if (missing.size() == keys.size()) {
      return Optional.empty();
    }
    if (!missing.isEmpty()) {
      throw new ConfigException(
          "kafka.acl.* names all four principals or none; missing: " + String.join(", ", missing));
    }
    try {
      return Optional.of(
          new CarillonAcls.Principals(
              values.get(0).get(),
              values.get(1).get(),
              values.get(2).get(),
              values.get(3).get(),
              c.bool("kafka.acl.workers-write", false)));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }
}
