package dev.carillon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import dev.carillon.config.ServiceLauncher.Command;
import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.kafka.Topics;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.Schema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * The deploy steps as every service image runs them ({@link ServiceLauncher#runStep}), and what a
 * service that does not migrate finds at start.
 */
@ExtendWith(DevStackExtension.class)
class SetupTest {
  // Roles belong to the whole cluster; a prefix of this test's own keeps them apart from other
  // tests' roles, and proves the prefix reaches the migration.
  private static final String PREFIX = "setup_t_";

  private static Map<String, String> db(DevStack stack, String url) {
    Map<String, String> c = new HashMap<>();
    c.put("db.url", url);
    c.put("db.user", stack.dbUser());
    c.put("db.password", stack.dbPassword());
    c.put("db.role-prefix", PREFIX);
    return c;
  }

  @Test
  void a_service_refuses_a_schema_the_migrate_step_has_not_brought_up_to_date(DevStack stack) {
    DbSettings settings =
        new DbSettings(stack.createDatabase("setup_empty"), stack.dbUser(), stack.dbPassword(), 1);
    assertThatThrownBy(() -> Database.forService(settings, null))
        .isInstanceOf(Schema.NotCurrentException.class)
        .hasMessageContaining("schema is at version none (empty)")
        .hasMessageContaining("1 (instances), 2 (trigger kinds)")
        .hasMessageContaining("service roles (repeatable)")
        .hasMessageContaining("run the migrate step first")
        .hasMessageContaining("db.migrate=true");
    // Nothing was created: the check only reads.
    try (Database db = Database.connect(settings, null)) {
      assertThat(db.dsl().fetchValue("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"))
          .isEqualTo(0L);
    }
  }

  @Test
  void migrate_creates_the_schema_and_roles_and_lets_only_the_roles_given_a_password_log_in(
      DevStack stack) throws SQLException {
    String url = stack.createDatabase("setup_migrate");
    Map<String, String> c = db(stack, url);
    c.put("roles.worker.password", "worker-secret-0123456789");
    assertThat(ServiceLauncher.runStep(Command.MIGRATE, Config.of(c))).isZero();
    // Run again: nothing pending, still fine (the Job may run on every deploy).
    assertThat(ServiceLauncher.runStep(Command.MIGRATE, Config.of(c))).isZero();

    DbSettings asWorker = new DbSettings(url, PREFIX + "worker", "worker-secret-0123456789", 1);
    try (Database db = Database.forService(asWorker, null)) {
      assertThat(db.dsl().fetchValue("SELECT current_user")).isEqualTo(PREFIX + "worker");
    }
    // No password was given for the api role: it stays a role that cannot log in.
    try (Connection ignored =
        DriverManager.getConnection(url, PREFIX + "api", "anything-at-all-0123456789")) {
      throw new AssertionError("role " + PREFIX + "api logged in without a password set");
    } catch (SQLException e) {
      assertThat(e.getMessage()).contains("not permitted to log in");
    }
  }

  @Test
  void migrate_exits_2_for_bad_configuration_and_1_when_postgres_cannot_be_reached(DevStack stack) {
    Map<String, String> c = db(stack, stack.createDatabase("setup_bad"));
    c.put("db.role-prefix", "Bad-Prefix");
    assertThat(ServiceLauncher.runStep(Command.MIGRATE, Config.of(c))).isEqualTo(2);
    c = db(stack, "jdbc:postgresql://127.0.0.1:1/none?password=url-secret-42");
    c.put("db.connection-timeout", "1s");
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    logs.start();
    root.addAppender(logs);
    try {
      assertThat(ServiceLauncher.runStep(Command.MIGRATE, Config.of(c))).isEqualTo(1);
    } finally {
      root.detachAppender(logs);
    }
    // The failure is logged with its causes, and the password in the URL is in none of them.
    assertThat(logs.list)
        .anySatisfy(e -> assertThat(e.getFormattedMessage()).contains("migrate failed"));
    for (ILoggingEvent e : logs.list) {
      assertThat(e.getFormattedMessage()).doesNotContain("url-secret-42");
      for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
        assertThat(String.valueOf(t.getMessage())).doesNotContain("url-secret-42");
      }
    }
  }

  @Test
  void create_topics_makes_the_configured_partitions_and_a_service_check_names_a_small_topic(
      DevStack stack) throws Exception {
    Map<String, String> c = new HashMap<>();
    c.put("kafka.bootstrap", stack.kafkaBootstrap());
    c.put("kafka.instances-partitions", "6");
    assertThat(ServiceLauncher.runStep(Command.CREATE_TOPICS, Config.of(c))).isZero();
    KafkaSettings kafka = KafkaSettings.of(stack.kafkaBootstrap());
    TopicAdmin.require(
        kafka,
        List.of(
            new TopicAdmin.Need(Topics.INSTANCES, 6, false),
            new TopicAdmin.Need(Topics.CONFIG, 1, true)));

    // A deployment that asks for more partitions than the topic has is told so at once.
    c.put("kafka.instances-partitions", "8");
    assertThat(ServiceLauncher.runStep(Command.CREATE_TOPICS, Config.of(c))).isEqualTo(2);
    assertThatThrownBy(
            () ->
                TopicAdmin.require(kafka, List.of(new TopicAdmin.Need(Topics.INSTANCES, 8, false))))
        .isInstanceOf(TopicAdmin.TopicException.class)
        .hasMessageContaining("topic carillon.instances has 6 partition(s) but at least 8");
  }

  @Test
  void create_topics_makes_each_queues_topic_of_kafka_queues_with_the_configured_partitions(
      DevStack stack) throws Exception {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String gpu = "gpu-" + unique;
    String batch = "batch-" + unique;
    Map<String, String> c = new HashMap<>();
    c.put("kafka.bootstrap", stack.kafkaBootstrap());
    c.put("kafka.instances-partitions", "6");
    c.put("kafka.queues", gpu + ", default," + batch);
    assertThat(ServiceLauncher.runStep(Command.CREATE_TOPICS, Config.of(c))).isZero();

    KafkaSettings kafka = KafkaSettings.of(stack.kafkaBootstrap());
    try (Admin admin = Admin.create(kafka.adminProps())) {
      Map<String, TopicDescription> described =
          admin
              .describeTopics(
                  List.of(
                      Topics.instances(Topics.INSTANCES, gpu),
                      Topics.instances(Topics.INSTANCES, batch)))
              .allTopicNames()
              .get(30, TimeUnit.SECONDS);
      assertThat(described.keySet())
          .containsExactlyInAnyOrder("carillon.instances." + gpu, "carillon.instances." + batch);
      assertThat(described.values()).allSatisfy(d -> assertThat(d.partitions()).hasSize(6));
    }
    // What a worker serving the queue checks at start.
    TopicAdmin.require(kafka, List.of(TopicAdmin.Need.instances(Topics.INSTANCES, gpu, 6)));
  }

  @Test
  void a_bad_queue_in_kafka_queues_is_named_and_nothing_is_created(DevStack stack) {
    String good = "ok-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> c = new HashMap<>();
    c.put("kafka.bootstrap", stack.kafkaBootstrap());
    c.put("kafka.queues", good + ",Not A Queue");
    assertThat(ServiceLauncher.runStep(Command.CREATE_TOPICS, Config.of(c))).isEqualTo(2);
    try (Admin admin = Admin.create(KafkaSettings.of(stack.kafkaBootstrap()).adminProps())) {
      assertThat(
              TopicAdmin.exists(
                  admin,
                  Topics.instances(Topics.INSTANCES, good),
                  java.time.Duration.ofSeconds(10)))
          .isEqualTo(TopicAdmin.Presence.MISSING);
    }
    assertThatThrownBy(() -> Setup.queues(Config.of(c)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.queues: queue 'Not A Queue' must match");
    assertThatThrownBy(() -> Setup.queues(Config.of(Map.of("kafka.queues", "gpu,,cpu"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.queues='gpu,,cpu': an empty queue name");
    assertThat(Setup.queues(Config.of(Map.of("kafka.queues", " gpu , cpu,gpu"))))
        .containsExactly("gpu", "cpu");
  }

  @Test
  void a_missing_topic_and_a_config_topic_that_is_not_compacted_are_named(DevStack stack)
      throws Exception {
    KafkaSettings kafka = KafkaSettings.of(stack.kafkaBootstrap());
    String missing = "setup.missing." + UUID.randomUUID();
    String plain = "setup.plain." + UUID.randomUUID();
    try (Admin admin = Admin.create(kafka.adminProps())) {
      admin.createTopics(List.of(new NewTopic(plain, 1, (short) 1))).all().get();
    }
    assertThatThrownBy(
            () ->
                TopicAdmin.require(
                    kafka,
                    List.of(
                        new TopicAdmin.Need(missing, 1, false),
                        new TopicAdmin.Need(plain, 1, true))))
        .isInstanceOf(TopicAdmin.TopicException.class)
        .hasMessageContaining("topic " + missing + " does not exist")
        .hasMessageContaining("create-topics step")
        .hasMessageContaining(
            "topic " + plain + " has cleanup.policy=delete but must be compacted");
  }

  @Test
  void acl_principals_come_all_four_or_none() {
    assertThat(Setup.principals(Config.of(Map.of()))).isEmpty();
    assertThatThrownBy(
            () ->
                Setup.principals(
                    Config.of(
                        Map.of(
                            "kafka.acl.trigger", "User:t",
                            "kafka.acl.operator", "User:o"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("missing: kafka.acl.worker, kafka.acl.retry");
  }
}
