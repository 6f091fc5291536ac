package dev.carillon.local;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.retry.RetryService;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.TaskStore;
import dev.carillon.trigger.TriggerService;
import dev.carillon.worker.WorkerService;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.jooq.Record2;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Trigger, worker and retry service running a task every second while PostgreSQL crashes (SIGKILL
 * of the postmaster, then a start through crash recovery) or hangs (every process SIGSTOPped, then
 * SIGCONT): no service is restarted, every one stays live, reports PostgreSQL on readiness while it
 * is gone, and the windows continue afterwards, each once.
 *
 * <p>The database of this test commits synchronously (set on the database), as a production
 * PostgreSQL does: the shared stack's asynchronous commit could lose acknowledged commits with the
 * crash, which is a different experiment.
 */
@Timeout(300)
class PostgresOutageTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String TASK = "beat";

  private final DevStack stack = DevStack.shared();
  private final List<AutoCloseable> open = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private String topic;
  private DbSettings db;
  private Database database;
  private String configTopic;
  private TriggerService trigger;
  private WorkerService worker;
  private RetryService retry;

  @BeforeEach
  void start() {
    String url = stack.createDatabase("pg_outage");
    db = new DbSettings(url, stack.dbUser(), stack.dbPassword(), 2);
    database = Database.open(db);
    open.add(database);
    database
        .dsl()
        .execute("alter database " + url.replaceAll(".*/", "") + " set synchronous_commit = on");
    new TaskStore(database.dsl())
        .applyAll(
            List.of(
                TaskDefinition.builder(TASK)
                    .handler("noop")
                    .cron("* * * * * ?", ZoneId.of("UTC"), WindowKind.EVERY_FIRE)
                    .overlap(OverlapPolicy.ALLOW)
                    .build()));
    topic = "outage-" + UUID.randomUUID();
    stack.createTopic(topic, 2);
    configTopic = "outage-config-" + UUID.randomUUID();
    createCompacted(configTopic);
  }

  /** The config topic as the create-topics step makes it: compacted (the services check it). */
  private void createCompacted(String name) {
    try (Admin admin = Admin.create(KafkaSettings.of(stack.kafkaBootstrap()).adminProps())) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(name, 1, (short) 1)
                      .configs(
                          Map.of(
                              TopicConfig.CLEANUP_POLICY_CONFIG,
                              TopicConfig.CLEANUP_POLICY_COMPACT))))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + name, e);
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  @Test
  void a_crash_of_postgresql_is_survived_without_restarts_and_no_window_runs_twice()
      throws Exception {
    startServices(Map.of());
    await("windows succeed before the crash").atMost(WAIT).until(() -> succeeded() >= 3);

    stack.killPostgres();
    try {
      await("every service reports PostgreSQL down and stays live")
          .atMost(WAIT)
          .untilAsserted(this::allLiveNoneReady);
    } finally {
      stack.startPostgres();
    }

    long atRecovery = succeeded();
    await("windows succeed again, none left behind")
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(succeeded()).isGreaterThanOrEqualTo(atRecovery + 5);
              allReady();
            });
    assertEveryWindowOnceAndRunOnce();
  }

  @Test
  void a_hung_postgresql_fails_ticks_fast_keeps_every_service_live_and_they_recover()
      throws Exception {
    // Short timeouts keep the test short; the defaults bound the same waits at 15 and 20 s.
    startServices(
        Map.of(
            "db.statement-timeout", "1s",
            "db.socket-timeout", "3s",
            "db.connect-timeout", "2s",
            "db.connection-timeout", "2s"));
    await("windows succeed before the hang").atMost(WAIT).until(() -> succeeded() >= 3);
    double failedBefore = ticksFailed();

    stack.freezePostgres();
    Instant frozen = Instant.now();
    try {
      await("every service reports PostgreSQL down")
          .atMost(WAIT)
          .untilAsserted(this::allLiveNoneReady);
      // Twenty seconds of hang: all that time the services stay live, and the tick thread keeps
      // finishing rounds (its ticks fail by the socket timeout instead of hanging).
      await("services stay live through the hang")
          .during(Duration.ofSeconds(20).minus(Duration.between(frozen, Instant.now())))
          .atMost(Duration.ofSeconds(40))
          .until(
              () -> {
                allLiveNoneReady();
                return trigger.loop().sinceLastRound().compareTo(Duration.ofSeconds(8)) < 0;
              });
      assertThat(ticksFailed() - failedBefore)
          .as("ticks that failed by a timeout during 20 s of hang")
          .isGreaterThanOrEqualTo(3);
    } finally {
      stack.thawPostgres();
    }

    long atRecovery = succeeded();
    await("windows succeed again after SIGCONT")
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(succeeded()).isGreaterThanOrEqualTo(atRecovery + 5);
              allReady();
            });
    assertEveryWindowOnceAndRunOnce();
  }

  // ---------------------------------------------------------------- helpers

  private void startServices(Map<String, String> extra) {
    Map<String, String> c = new HashMap<>();
    c.put("db.url", db.url());
    c.put("db.user", db.user());
    c.put("db.password", db.password());
    c.put("db.pool-size", "4");
    c.put("kafka.bootstrap", stack.kafkaBootstrap());
    c.put("zk.connect", stack.zkConnect());
    c.put("zk.session-timeout", "10s");
    c.put("admin.port", "0");
    // The control-plane API is not what these tests look at: any port, no tokens.
    c.put("api.port", "0");
    c.put("api.insecure-local", "true");
    c.put("api.bind-address", "127.0.0.1");
    c.put("trigger.topic", topic);
    c.put("trigger.dispatch-sweep", "1s");
    c.put("worker.topic", topic);
    c.put("worker.group", "outage-" + UUID.randomUUID());
    c.put("worker.heartbeat-interval", "1s");
    c.put("retry.instances-topic", topic);
    c.put("retry.config-topic", configTopic);
    c.put("kafka.instances-partitions", "2");
    c.put("retry.scan-interval", "500ms");
    c.putAll(extra);
    trigger = TriggerService.start(Config.of(with(c, "trigger-1")), Clock.systemUTC());
    open.add(trigger);
    worker = WorkerService.start(Config.of(with(c, "worker-1")));
    open.add(worker);
    retry = RetryService.start(Config.of(with(c, "retry-1")), Clock.systemUTC());
    open.add(retry);
    await("trigger and retry lead")
        .atMost(WAIT)
        .until(() -> trigger.isLeader() && retry.isLeader());
  }

  private static Map<String, String> with(Map<String, String> c, String id) {
    Map<String, String> copy = new HashMap<>(c);
    copy.put("instance.id", id);
    return copy;
  }

  private void allLiveNoneReady() throws Exception {
    for (int port : ports()) {
      assertThat(get(port, "/health/live").statusCode()).as("live on %d", port).isEqualTo(200);
      HttpResponse<String> ready = get(port, "/health/ready");
      assertThat(ready.statusCode()).as("ready on %d", port).isEqualTo(503);
      assertThat(ready.body()).contains("\"postgres\":\"DOWN");
    }
  }

  private void allReady() throws Exception {
    for (int port : ports()) {
      HttpResponse<String> ready = get(port, "/health/ready");
      assertThat(ready.statusCode()).as("ready on %d: %s", port, ready.body()).isEqualTo(200);
      assertThat(ready.body()).contains("\"postgres\":\"UP\"");
    }
  }

  private List<Integer> ports() {
    return List.of(trigger.adminPort(), worker.adminPort(), retry.adminPort());
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private double ticksFailed() {
    return trigger.metrics().ticksFailed();
  }

  private long succeeded() {
    return database
        .dsl()
        .fetchCount(
            TASK_INSTANCE,
            TASK_INSTANCE
                .TASK_ID
                .eq(TASK)
                .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.SUCCESS.name())));
  }

  /**
   * One row per second from the first window to the last (a window missed during the outage is made
   * up as a catch-up), and no window claimed twice: every one that finished did so at its first
   * attempt.
   */
  private void assertEveryWindowOnceAndRunOnce() {
    List<Instant> fires =
        database
            .dsl()
            .select(TASK_INSTANCE.SCHEDULED_AT)
            .from(TASK_INSTANCE)
            .where(TASK_INSTANCE.TASK_ID.eq(TASK))
            .orderBy(TASK_INSTANCE.SCHEDULED_AT)
            .fetch(TASK_INSTANCE.SCHEDULED_AT);
    assertThat(fires).doesNotHaveDuplicates();
    assertThat(fires)
        .as("one window per second from %s to %s", fires.get(0), fires.get(fires.size() - 1))
        .hasSize((int) Duration.between(fires.get(0), fires.get(fires.size() - 1)).toSeconds() + 1);
    List<Record2<Long, Integer>> claimedTwice =
        database
            .dsl()
            .select(INSTANCE_EVENT.INSTANCE_ID, DSL.count())
            .from(INSTANCE_EVENT)
            .where(INSTANCE_EVENT.TASK_ID.eq(TASK))
            .and(INSTANCE_EVENT.TO_STATUS.eq(InstanceStatus.RUNNING.name()))
            .groupBy(INSTANCE_EVENT.INSTANCE_ID)
            .having(DSL.count().gt(1))
            .fetch();
    assertThat(claimedTwice).as("windows claimed more than once").isEmpty();
  }
}
