package dev.carillon.local;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.carillon.auth.Principal;
import dev.carillon.auth.Role;
import dev.carillon.auth.TokenFile;
import dev.carillon.auth.Tokens;
import dev.carillon.config.CommonSettings;
import dev.carillon.config.Config;
import dev.carillon.config.ServiceLauncher;
import dev.carillon.config.ServiceLauncher.Command;
import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackOptions;
import dev.carillon.kafka.CarillonAcls;
import dev.carillon.kafka.Topics;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.retry.RetryService;
import dev.carillon.schedctl.Schedctl;
import dev.carillon.store.Database;
import dev.carillon.store.DbRole;
import dev.carillon.store.DbSettings;
import dev.carillon.store.Schema;
import dev.carillon.trigger.TriggerService;
import dev.carillon.worker.WorkerService;
import dev.carillon.worker.WorkerSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The deployment docs/security.md describes, on one devstack: PostgreSQL checks passwords and each
 * service logs in as its own role (the worker's password inside its JDBC URL), Kafka takes only
 * SASL/SCRAM clients and authorizes them by the ACLs the create-topics step made, ZooKeeper nodes
 * belong to the services' digest identity, and config records must be signed. A task runs to
 * SUCCESS; the doors that should be shut are.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SecuredStackTest {
  private static final String ZK_PASSWORD = "zk-digest-secret-7f3a9c";
  private static final String SIGNING_SECRET = "config-signing-secret-0123456789-abcdefgh";
  private static final Map<String, String> KAFKA_PASSWORDS =
      Map.of(
          "carillon-trigger", "kafka-trigger-secret-1",
          "carillon-worker", "kafka-worker-secret-2",
          "carillon-retry", "kafka-retry-secret-3",
          "carillon-operator", "kafka-operator-secret-4");
  private static final int PARTITIONS = 4;

  @TempDir static Path dir;
  private static DevStack stack;
  private static String dbUrl;
  private static final Map<DbRole, String> dbPasswords = new EnumMap<>(DbRole.class);
  private static final List<AutoCloseable> services = new ArrayList<>();
  private static final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private static final String ADMIN_TOKEN = Tokens.mint();
  private static TriggerService triggerService;
  private static RetryService retry;

  /** A queue besides the default one, whose topic the create-topics step makes. */
  private static final String SECURED_QUEUE = "secured-q";

  private static Database readOnly;

  @BeforeAll
  static void deploy() throws IOException {
    stack =
        DevStack.start(DevStackOptions.defaults().withKafkaSasl(true).withPostgresPasswords(true));
    KAFKA_PASSWORDS.forEach(stack.kafka()::addUser);
    for (DbRole role : DbRole.values()) {
      dbPasswords.put(role, "db-" + role.key() + "-secret-" + role.ordinal() + "x9");
    }
    dbUrl = stack.createDatabase("secured");
    captureLogs();

    // The deploy steps, as the migrate and topics Jobs run them.
    Map<String, String> migrate = new HashMap<>();
    migrate.put("db.url", dbUrl);
    migrate.put("db.user", stack.dbUser());
    migrate.put("db.password", stack.dbPassword());
    dbPasswords.forEach((role, pw) -> migrate.put("roles." + role.key() + ".password", pw));
    assertThat(ServiceLauncher.runStep(Command.MIGRATE, Config.of(migrate))).isZero();

    Map<String, String> topics = new HashMap<>();
    topics.put("kafka.bootstrap", stack.kafkaBootstrap());
    stack.kafka().superUserProperties().forEach((k, v) -> topics.put("kafka.properties." + k, v));
    topics.put("kafka.instances-partitions", Integer.toString(PARTITIONS));
    topics.put("kafka.acl.trigger", "User:carillon-trigger");
    topics.put("kafka.acl.worker", "User:carillon-worker");
    topics.put("kafka.acl.retry", "User:carillon-retry");
    topics.put("kafka.acl.operator", "User:carillon-operator");
    // The queue topic and its ACLs come from the step too: the services may not create topics.
    topics.put("kafka.queues", SECURED_QUEUE);
    assertThat(ServiceLauncher.runStep(Command.CREATE_TOPICS, Config.of(topics))).isZero();

    Clock clock = Clock.systemUTC();
    Map<String, String> trigger = service(DbRole.TRIGGER, "carillon-trigger");
    // The API in the trigger process, on its own credentials: the api role and the operator user.
    Path tokens = dir.resolve("api-tokens");
    Files.writeString(
        tokens, TokenFile.line(new Principal("alice", Role.ADMIN), ADMIN_TOKEN) + "\n");
    trigger.put("api.port", "0");
    trigger.put("api.tokens-file", tokens.toString());
    trigger.put("api.db-user", DbRole.API.roleName(Schema.DEFAULT_ROLE_PREFIX));
    trigger.put("api.db-password", dbPasswords.get(DbRole.API));
    stack
        .kafka()
        .clientProperties("carillon-operator", KAFKA_PASSWORDS.get("carillon-operator"))
        .forEach((k, v) -> trigger.put("api.kafka.properties." + k, v));
    triggerService = TriggerService.start(Config.of(trigger), clock);
    services.add(triggerService);
    Map<String, String> worker = service(DbRole.WORKER, "carillon-worker");
    // The password in the URL instead of db.password: it must not reach a log line either.
    worker.put("db.url", dbUrl + "?password=" + dbPasswords.get(DbRole.WORKER));
    worker.remove("db.password");
    worker.put("worker.republish-released", "false");
    worker.put("worker.queues", "default," + SECURED_QUEUE);
    services.add(WorkerService.start(Config.of(worker)));
    retry = RetryService.start(Config.of(service(DbRole.RETRY, "carillon-retry")), clock);
    services.add(retry);

    readOnly =
        Database.connect(
            new DbSettings(
                dbUrl,
                DbRole.READONLY.roleName(Schema.DEFAULT_ROLE_PREFIX),
                dbPasswords.get(DbRole.READONLY),
                1),
            null);
  }

  /** One service's configuration: its own role, Kafka user and the shared ZooKeeper digest. */
  private static Map<String, String> service(DbRole role, String kafkaUser) {
    Map<String, String> c = new HashMap<>();
    c.put("db.url", dbUrl);
    c.put("db.user", role.roleName(Schema.DEFAULT_ROLE_PREFIX));
    c.put("db.password", dbPasswords.get(role));
    c.put("db.pool-size", "4");
    c.put("kafka.bootstrap", stack.kafkaBootstrap());
    stack
        .kafka()
        .clientProperties(kafkaUser, KAFKA_PASSWORDS.get(kafkaUser))
        .forEach((k, v) -> c.put("kafka.properties." + k, v));
    c.put("kafka.instances-partitions", Integer.toString(PARTITIONS));
    c.put("zk.connect", stack.zkConnect());
    c.put("zk.digest-user", "carillon");
    c.put("zk.digest-password", ZK_PASSWORD);
    c.put(CommonSettings.SIGNING_SECRET, SIGNING_SECRET);
    c.put("admin.port", "0");
    c.put("instance.id", "secured-" + role.key());
    c.put("worker.drain-timeout", "2s");
    return c;
  }

  /** Every log line from here on, at DEBUG for Carillon, the pool, Flyway and the driver. */
  private static void captureLogs() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    logs.setContext(context);
    logs.start();
    context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(logs);
    for (String name :
        List.of("dev.carillon", "com.zaxxer.hikari", "org.flywaydb", "org.postgresql")) {
      context.getLogger(name).setLevel(Level.DEBUG);
    }
    // Kafka prints every client's configuration at INFO (secrets as [hidden]).
    context.getLogger("org.apache.kafka.clients").setLevel(Level.INFO);
    context.getLogger("org.apache.curator").setLevel(Level.INFO);
  }

  @AfterAll
  static void undeploy() {
    for (int i = services.size() - 1; i >= 0; i--) {
      try {
        services.get(i).close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    if (readOnly != null) {
      readOnly.close();
    }
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(logs);
    for (String name :
        List.of(
            "dev.carillon",
            "com.zaxxer.hikari",
            "org.flywaydb",
            "org.postgresql",
            "org.apache.kafka.clients",
            "org.apache.curator")) {
      context.getLogger(name).setLevel(null);
    }
    stack.close();
  }

  /** schedctl in-process as an operator: the api role and the operator's Kafka user. */
  private static String schedctl(String... args) {
    Map<String, String> env = new HashMap<>();
    env.put("CARILLON_DB_URL", dbUrl);
    env.put("CARILLON_DB_USER", DbRole.API.roleName(Schema.DEFAULT_ROLE_PREFIX));
    env.put("CARILLON_DB_PASSWORD", dbPasswords.get(DbRole.API));
    env.put("CARILLON_KAFKA_BOOTSTRAP", stack.kafkaBootstrap());
    stack
        .kafka()
        .clientProperties("carillon-operator", KAFKA_PASSWORDS.get("carillon-operator"))
        .forEach((k, v) -> env.put(Config.envName("kafka.properties." + k), v));
    env.put(Config.envName(CommonSettings.SIGNING_SECRET), SIGNING_SECRET);
    env.put("USER", "secured-test");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        new Schedctl()
            .run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                env);
    assertThat(code)
        .as("schedctl %s: %s", String.join(" ", args), err.toString(StandardCharsets.UTF_8))
        .isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  private static KafkaProducer<String, byte[]> producer(String user) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafkaBootstrap());
    p.putAll(stack.kafka().clientProperties(user, KAFKA_PASSWORDS.get(user)));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    // Not idempotent: an idempotent producer first asks for a producer id, which a principal that
    // may write nowhere is refused as a cluster authorization; the topic's refusal is the point.
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
    return new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
  }

  private static void refusedToWrite(String user, String topic) {
    try (KafkaProducer<String, byte[]> p = producer(user)) {
      assertThatThrownBy(
              () ->
                  p.send(new ProducerRecord<>(topic, "retry/default", new byte[] {'{', '}'}))
                      .get(20, TimeUnit.SECONDS))
          .as("%s writing to %s", user, topic)
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(TopicAuthorizationException.class);
    }
  }

  @Test
  void a_task_runs_to_success_with_every_service_on_its_own_credentials() throws IOException {
    Path tasks = dir.resolve("tasks.yaml");
    Files.writeString(
        tasks,
        "tasks:\n"
            + "  - id: secured-noop\n"
            + "    handler: noop\n"
            + "    schedule: { cron: \"0/2 * * * * ?\", zone: UTC, window: EVERY_FIRE }\n"
            + "    timeout: 30s\n"
            + "  - id: secured-queued\n"
            + "    handler: noop\n"
            + "    queue: "
            + SECURED_QUEUE
            + "\n"
            + "    schedule: { cron: \"0/2 * * * * ?\", zone: UTC, window: EVERY_FIRE }\n"
            + "    timeout: 30s\n");
    assertThat(schedctl("apply", "-f", tasks.toString()))
        .contains("secured-noop")
        .contains("secured-queued");

    await("an instance of secured-noop succeeds, read by the read-only role")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        readOnly
                            .dsl()
                            .fetchCount(
                                TASK_INSTANCE,
                                TASK_INSTANCE
                                    .TASK_ID
                                    .eq("secured-noop")
                                    .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.SUCCESS.name()))))
                    .isPositive());
    await("an instance of secured-queued succeeds, through its queue's topic and its ACLs")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        readOnly
                            .dsl()
                            .fetchCount(
                                TASK_INSTANCE,
                                TASK_INSTANCE
                                    .TASK_ID
                                    .eq("secured-queued")
                                    .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.SUCCESS.name()))))
                    .isPositive());
    assertThat(
            readOnly
                .dsl()
                .fetchValue("SELECT string_agg(DISTINCT worker_id, ',') FROM task_instance"))
        .isEqualTo("secured-worker");
  }

  @Test
  void only_the_operator_writes_config_and_only_signed_records_apply() throws Exception {
    refusedToWrite("carillon-worker", Topics.CONFIG);
    refusedToWrite("carillon-trigger", Topics.CONFIG);
    refusedToWrite("carillon-retry", Topics.CONFIG);
    refusedToWrite("carillon-worker", Topics.INSTANCES);
    refusedToWrite("carillon-operator", Topics.INSTANCES);
    refusedToWrite("carillon-worker", Topics.instances(Topics.INSTANCES, SECURED_QUEUE));
    refusedToWrite("carillon-operator", Topics.instances(Topics.INSTANCES, SECURED_QUEUE));

    schedctl("config", "set", "retry/secured-noop", "{\"policy\":\"none\"}");
    await("the retry service applies the operator's signed override")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(retry.tuning().taskOverride("secured-noop")).isPresent());
    long applied = retry.tuning().taskOverride("secured-noop").get().version();

    // The operator's credentials without the signing secret: accepted by Kafka, refused by the
    // retry service.
    long rejectedBefore = retry.metrics().totals().configRejected();
    long offset;
    try (KafkaProducer<String, byte[]> p = producer("carillon-operator")) {
      offset =
          p.send(
                  new ProducerRecord<>(
                      Topics.CONFIG,
                      "retry/secured-noop",
                      "{\"policy\":\"IMMEDIATE\",\"maxRetries\":100}"
                          .getBytes(StandardCharsets.UTF_8)))
              .get(20, TimeUnit.SECONDS)
              .offset();
    }
    await("the retry service handled the unsigned record")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(retry.tuning().lastOffset()).isGreaterThanOrEqualTo(offset));
    assertThat(retry.metrics().totals().configRejected()).isEqualTo(rejectedBefore + 1);
    assertThat(retry.tuning().taskOverride("secured-noop").get().version()).isEqualTo(applied);
  }

  @Test
  void the_api_writes_signed_config_as_the_operator_and_reads_through_the_api_role()
      throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    String base = "http://127.0.0.1:" + triggerService.apiPort() + "/api/v1";
    HttpResponse<String> put =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/config/retry/api-task"))
                .header("Authorization", "Bearer " + ADMIN_TOKEN)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .PUT(HttpRequest.BodyPublishers.ofString("{\"policy\":\"none\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
    // The API signed it with the secret, so the retry service applies it.
    await("the retry service applies the override the API wrote")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(retry.tuning().taskOverride("api-task")).isPresent());

    HttpResponse<String> tasks =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/tasks"))
                .header("Authorization", "Bearer " + ADMIN_TOKEN)
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(tasks.statusCode()).as(tasks.body()).isEqualTo(200);
    // The API's sessions are the api role's, not the trigger's.
    assertThat(
            readOnly
                .dsl()
                .fetchValue(
                    "SELECT count(*) FROM pg_stat_activity WHERE usename = {0}",
                    DSL.val(DbRole.API.roleName(Schema.DEFAULT_ROLE_PREFIX))))
        .isNotEqualTo(0L);
  }

  @Test
  void no_log_line_of_the_deploy_steps_or_the_service_starts_holds_a_secret() {
    List<String> secrets = new ArrayList<>(dbPasswords.values());
    secrets.addAll(KAFKA_PASSWORDS.values());
    secrets.add(ZK_PASSWORD);
    secrets.add(SIGNING_SECRET);
    secrets.add(ADMIN_TOKEN);
    List<String> lines =
        logs.list.stream().map(e -> e.getFormattedMessage() + " " + throwableText(e)).toList();
    assertThat(lines).as("log lines captured").hasSizeGreaterThan(20);
    assertThat(String.join("\n", lines))
        .as("the worker's URL is logged, masked")
        .contains("?password=****");
    for (String line : lines) {
      for (String secret : secrets) {
        assertThat(line).as("a log line").doesNotContain(secret);
      }
    }
  }

  @Test
  void the_groups_the_acls_name_are_the_services_own() {
    assertThat(CarillonAcls.TRIGGER_EVENTS_GROUP).isEqualTo(TriggerService.EVENTS_GROUP);
    assertThat(CarillonAcls.WORKER_GROUP).isEqualTo(WorkerSettings.DEFAULT_GROUP);
  }

  private static String throwableText(ILoggingEvent e) {
    StringBuilder sb = new StringBuilder();
    for (var t = e.getThrowableProxy(); t != null; t = t.getCause()) {
      sb.append(t.getClassName()).append(": ").append(t.getMessage()).append(' ');
    }
    return sb.toString();
  }
}
