package dev.carillon.config;

import dev.carillon.kafka.CarillonAcls;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.kafka.Topics;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.DbRole;
import dev.carillon.store.DbSettings;
import dev.carillon.store.Schema;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
 *   <tr><td>kafka.queues</td><td>none</td><td>the queues besides {@code default}, comma
 *       separated: create-topics makes each one's instances topic ({@code carillon.instances.<queue>})
 *       with {@code kafka.instances-partitions} partitions and the instances topic's ACLs</td></tr>
 *   <tr><td>kafka.replication</td><td>1</td><td>replication factor of every topic</td></tr>
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
          "kafka.queues",
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
   * Creates the instances topic of the default queue and of each queue of {@code kafka.queues} with
   * {@code kafka.instances-partitions} partitions, and the compacted config topic; topics that
   * exist are left as they are (and then checked like a service checks them, so a too small topic
   * is reported here first). With {@code kafka.acl.*} set, the instances topic's ACLs are created
   * on each queue's topic too.
   *
   * @throws ConfigException when a setting is missing or wrong
   * @throws TopicAdmin.TopicException when an existing topic is too small or not compacted
   */
  public static void createTopics(Config c) {
    KafkaSettings kafka = CommonSettings.kafka(c);
    int partitions = CommonSettings.instancePartitions(c);
    short replication = (short) c.integer("kafka.replication", 1, 1, 7);
    List<String> queues = queues(c);
    Optional<CarillonAcls.Principals> principals = principals(c);
    TopicAdmin.ensureTopics(kafka, partitions, replication, queues);
    List<TopicAdmin.Need> needs = new ArrayList<>();
    List<String> instancesTopics = new ArrayList<>();
    needs.add(new TopicAdmin.Need(Topics.INSTANCES, partitions, false));
    instancesTopics.add(Topics.INSTANCES);
    for (String queue : queues) {
      TopicAdmin.Need need = TopicAdmin.Need.instances(Topics.INSTANCES, queue, partitions);
      if (!instancesTopics.contains(need.topic())) {
        needs.add(need);
        instancesTopics.add(need.topic());
      }
    }
    needs.add(new TopicAdmin.Need(Topics.CONFIG, 1, true));
    TopicAdmin.require(kafka, needs);
    if (principals.isPresent()) {
      TopicAdmin.createAcls(
          kafka,
          CarillonAcls.bindings(
              principals.get(),
              instancesTopics,
              Topics.CONFIG,
              c.string("worker.group", CarillonAcls.WORKER_GROUP)));
    }
  }

  /**
   * The {@code kafka.queues} key: the queues whose own instances topics the create-topics step
   * makes, in the order given, without repeats; empty when not set.
   *
   * @throws ConfigException naming the key and the value when a name is empty or not a queue name
   *     ({@link TaskDefinition#QUEUE_PATTERN})
   */
  public static List<String> queues(Config c) {
    Optional<String> raw = c.optional("kafka.queues");
    if (raw.isEmpty() || raw.get().isBlank()) {
      return List.of();
    }
    Set<String> out = new LinkedHashSet<>();
    for (String part : raw.get().split(",", -1)) {
      String queue = part.strip();
      if (queue.isEmpty()) {
        throw new ConfigException(
            "kafka.queues='" + raw.get() + "': an empty queue name (a stray comma?)");
      }
      if (!TaskDefinition.QUEUE_PATTERN.matcher(queue).matches()) {
        throw new ConfigException(
            "kafka.queues: queue '"
                + queue
                + "' must match "
                + TaskDefinition.QUEUE_PATTERN.pattern());
      }
      out.add(queue);
    }
    return List.copyOf(out);
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
      throw new ConfigException(e);
    }
  }
}
