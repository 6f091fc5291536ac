package dev.carillon.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.auth.Principal;
import dev.carillon.auth.Role;
import dev.carillon.auth.TokenFile;
import dev.carillon.auth.Tokens;
import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(DevStackExtension.class)
class TriggerServiceTest {
  private static final Duration SESSION = Duration.ofSeconds(3);
  private static final Duration DEADLINE = Duration.ofSeconds(40);

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final String topic = "trigger-test-" + UUID.randomUUID().toString().substring(0, 8);
  private final String token = Tokens.mint();
  @TempDir Path tempDir;
  private Path tokens;
  private DbSettings dbSettings;
  private Database db;
  private OperatorStore instances;

  @BeforeEach
  void database() throws Exception {
    tokens = tempDir.resolve("tokens");
    Files.writeString(tokens, TokenFile.line(new Principal("tester", Role.VIEWER), token) + "\n");
    dbSettings = TestDatabase.settings("trigger_service");
    db = Database.open(dbSettings);
    toClose.add(db);
    instances = new OperatorStore(db.dsl());
    // Created up front, as a deployment does; see DevStack.createTopic for why not auto-created.
    DevStack.shared().createTopic(topic, 2);
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  @Test
  void health_reports_leadership_the_last_tick_and_postgres(DevStack stack) throws Exception {
    TriggerService leader = start(stack, "a", Clock.systemUTC());
    await("the trigger to lead").atMost(DEADLINE).until(leader::isLeader);
    await("a first tick")
        .atMost(DEADLINE)
        .untilAsserted(() -> assertThat(leader.loop().lastTick()).isPresent());
    TriggerService standby = start(stack, "b", Clock.systemUTC());
    await("the standby sees PostgreSQL")
        .atMost(DEADLINE)
        .untilAsserted(() -> assertThat(standby.health().ready()).isTrue());

    HttpResponse<String> ready = get(leader.adminPort(), "/health/ready");
    HttpResponse<String> standbyReady = get(standby.adminPort(), "/health/ready");

    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.body())
        .contains("\"leader\":true")
        .contains("\"postgres\":\"UP\"")
        .contains("\"epoch\":")
        .contains("\"lastTickLagMs\":");
    // Ticks run on the database's clock, which is this host's here.
    assertThat(Duration.between(leader.loop().lastTick().orElseThrow().now(), Instant.now()).abs())
        .isLessThan(Duration.ofSeconds(5));
    assertThat(standbyReady.statusCode()).isEqualTo(200);
    assertThat(standbyReady.body()).contains("\"leader\":false").contains("\"lastTick\":\"never\"");
    assertThat(get(leader.adminPort(), "/metrics").body())
        .contains("carillon_trigger_leader 1.0")
        .contains("carillon_trigger_ticks_total")
        .contains("carillon_leader_epoch{service=\"trigger\"}")
        .contains("carillon_trigger_clock_skew")
        .contains("carillon_trigger_dispatch_backlog")
        .contains("carillon_trigger_dispatch_oldest_age");
  }

  @Test
  void when_the_leaders_session_expires_the_standby_continues_without_gaps_or_duplicates(
      DevStack stack) throws Exception {
    new TaskStore(db.dsl())
        .applyAll(List.of(Tasks.everySeconds("beat", 1).overlap(OverlapPolicy.ALLOW).build()));
    TriggerService a = start(stack, "a", Clock.systemUTC());
    TriggerService b = start(stack, "b", Clock.systemUTC());
    await("a or b to lead")
        .atMost(DEADLINE)
        .untilAsserted(
            () ->
                assertThat(List.of(a.isLeader(), b.isLeader()))
                    .as("a and b leading")
                    .contains(true));
    TriggerService oldLeader = a.isLeader() ? a : b;
    TriggerService standby = oldLeader == a ? b : a;
    await("three windows of beat")
        .atMost(DEADLINE)
        .untilAsserted(() -> assertThat(windows("beat")).hasSizeGreaterThanOrEqualTo(3));

    expireSession(stack, oldLeader);

    await("the standby to take over").atMost(DEADLINE).until(standby::isLeader);
    await("the old leader to stop ticking")
        .atMost(DEADLINE)
        .untilAsserted(() -> assertThat(oldLeader.loop().isTicking()).isFalse());
    int atTakeover = windows("beat").size();
    await("three more windows after the takeover")
        .atMost(DEADLINE)
        .untilAsserted(
            () -> assertThat(windows("beat")).hasSizeGreaterThanOrEqualTo(atTakeover + 3));
    oldLeader.close();
    standby.close();

    List<Instance> rows = windows("beat");
    assertThat(rows.stream().map(Instance::windowKey).distinct().count()).isEqualTo(rows.size());
    Instant first = rows.get(0).scheduledAt();
    Instant last = rows.get(rows.size() - 1).scheduledAt();
    assertThat(rows)
        .as("one window per second from %s to %s", first, last)
        .hasSize((int) Duration.between(first, last).toSeconds() + 1);
    assertThat(oldLeader.isLeader()).isFalse();
  }

  @Test
  void while_kafka_is_down_windows_are_created_and_published_once_it_returns(DevStack stack) {
    new TaskStore(db.dsl())
        .applyAll(List.of(Tasks.everySeconds("beat", 1).overlap(OverlapPolicy.ALLOW).build()));
    TriggerService trigger = start(stack, "a", Clock.systemUTC());
    await("the trigger to lead").atMost(DEADLINE).until(trigger::isLeader);
    await("a first window to be dispatched")
        .atMost(DEADLINE)
        .untilAsserted(() -> assertThat(windows("beat")).anyMatch(i -> i.dispatchedAt() != null));

    Set<Long> createdWhileDown = new HashSet<>();
    stack.stopKafka();
    try {
      Instant stopped = Instant.now();
      await("three windows created while Kafka is down")
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                windows("beat").stream()
                    .filter(i -> i.createdAt().isAfter(stopped) && i.dispatchedAt() == null)
                    .forEach(i -> createdWhileDown.add(i.id()));
                assertThat(createdWhileDown).hasSizeGreaterThanOrEqualTo(3);
              });
    } finally {
      stack.startKafka();
    }

    await("the windows created while Kafka was down to be dispatched")
        .atMost(DEADLINE)
        .untilAsserted(
            () ->
                assertThat(createdWhileDown)
                    .allMatch(id -> instances.find(id).orElseThrow().dispatchedAt() != null));
    Set<Long> consumed = new HashSet<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            KafkaSettings.of(stack.kafkaBootstrap()).consumerProps("g-" + UUID.randomUUID()))) {
      consumer.subscribe(List.of(topic));
      await("their ids on the topic")
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  consumed.add(InstanceMessageCodec.decode(r.value()).instanceId());
                }
                assertThat(consumed).containsAll(createdWhileDown);
              });
    }
    assertThat(consumed).containsAll(createdWhileDown);
    assertThat(instances.countByStatus("beat")).containsOnlyKeys(InstanceStatus.PENDING);
  }

  @Test
  void every_replica_serves_the_api_leader_or_standby(DevStack stack) throws Exception {
    TriggerService a = start(stack, "api-a", Clock.systemUTC());
    await("one trigger leads").atMost(DEADLINE).until(a::isLeader);
    TriggerService b = start(stack, "api-b", Clock.systemUTC());
    assertThat(b.isLeader()).isFalse();
    for (TriggerService t : List.of(a, b)) {
      HttpResponse<String> whoami =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + t.apiPort() + "/api/v1/whoami"))
                      .header("Authorization", "Bearer " + token)
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(whoami.statusCode()).as("leader=%s", t.isLeader()).isEqualTo(200);
      assertThat(whoami.body())
          .contains("\"principal\":\"tester\"")
          .contains("\"role\":\"viewer\"");
      assertThat(t.apiPort()).isNotEqualTo(t.adminPort());
    }
  }

  /**
   * The real entry point in its own JVM: without {@code api.tokens-file} and without {@code
   * api.insecure-local=true} it stops before connecting to anything, with exit code 2 and a line
   * naming the setting.
   */
  @Test
  void without_a_tokens_file_the_trigger_exits_2_naming_the_setting() throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            TriggerMain.class.getName());
    pb.environment().keySet().removeIf(k -> k.startsWith("CARILLON_"));
    pb.environment().put("CARILLON_DB_URL", "jdbc:postgresql://127.0.0.1:1/none");
    pb.environment().put("CARILLON_KAFKA_BOOTSTRAP", "127.0.0.1:1");
    pb.environment().put("CARILLON_ZK_CONNECT", "127.0.0.1:1");
    pb.redirectErrorStream(true);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("exited").isTrue();
    assertThat(p.exitValue()).as(output).isEqualTo(2);
    assertThat(output)
        .contains("missing configuration api.tokens-file (or CARILLON_API_TOKENS_FILE)")
        .contains("api.insecure-local=true");
  }

  // ---------------------------------------------------------------- helpers

  private TriggerService start(DevStack stack, String name, Clock clock) {
    Map<String, String> c = new HashMap<>();
    c.put("db.url", dbSettings.url());
    c.put("db.user", dbSettings.user());
    c.put("db.password", dbSettings.password());
    c.put("db.pool-size", "4");
    c.put("kafka.bootstrap", stack.kafkaBootstrap());
    c.put("zk.connect", stack.zkConnect());
    c.put("zk.session-timeout", "3s");
    c.put("admin.port", "0");
    c.put("instance.id", name);
    c.put("trigger.topic", topic);
    c.put("kafka.instances-partitions", "2");
    c.put("trigger.ack-timeout", "2s");
    c.put("trigger.dispatch-sweep", "PT0.5S");
    c.put("trigger.redispatch-after", "30s");
    c.put("api.port", "0");
    c.put("api.tokens-file", tokens.toString());
    TriggerService s = TriggerService.start(Config.of(c), clock);
    toClose.add(s);
    return s;
  }

  private List<Instance> windows(String taskId) {
    List<Instance> rows = new ArrayList<>(instances.list(taskId, null, null, 100_000));
    rows.sort(java.util.Comparator.comparing(Instance::scheduledAt));
    return rows;
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  /** Expires the service's ZooKeeper session on the server (see LeaderElectionTest). */
  private static void expireSession(DevStack stack, TriggerService service) throws Exception {
    ZooKeeper zk = service.curator().getZookeeperClient().getZooKeeper();
    ZooKeeper twin =
        new ZooKeeper(
            stack.zkConnect(),
            (int) SESSION.toMillis(),
            event -> {},
            zk.getSessionId(),
            zk.getSessionPasswd());
    try {
      await("the twin session to connect")
          .atMost(DEADLINE)
          .untilAsserted(
              () ->
                  assertThat(twin.getState().isConnected())
                      .as("state %s", twin.getState())
                      .isTrue());
    } finally {
      twin.close();
    }
  }
}
