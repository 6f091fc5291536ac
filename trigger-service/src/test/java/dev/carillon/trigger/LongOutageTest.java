package dev.carillon.trigger;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Long outages of Kafka and ZooKeeper: with Kafka away, thousands of windows are created while the
 * dispatch queue stays within its bound and the backlog's age is reported, and every one is
 * published once Kafka returns; with ZooKeeper away, the trigger steps down and writes nothing,
 * then leads again and makes up the missed windows.
 */
@Timeout(240)
class LongOutageTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int BOUND = 200;

  private final DevStack stack = DevStack.shared();
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final String topic = "outage-" + UUID.randomUUID();
  private DbSettings db;
  private Database database;
  private OperatorStore instances;

  @BeforeEach
  void open() {
    db = TestDatabase.settings("long_outage");
    database = Database.open(db);
    toClose.add(database);
    instances = new OperatorStore(database.dsl());
    stack.createTopic(topic, 2);
  }

  @AfterEach
  void close() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  @Test
  void with_kafka_away_thousands_of_windows_wait_in_the_database_not_in_memory() {
    // 300 tasks firing every second: about 300 new instances a second, far beyond the bound.
    List<TaskDefinition> defs = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      defs.add(Tasks.everySeconds("busy-" + i, 1).overlap(OverlapPolicy.ALLOW).build());
    }
    new TaskStore(database.dsl()).applyAll(defs);
    TriggerService trigger = start("a", Map.of());
    await("the trigger leads and publishes")
        .atMost(WAIT)
        .until(() -> trigger.isLeader() && dispatched() > 0);

    Set<Long> createdWhileDown = new HashSet<>();
    stack.stopKafka();
    try {
      Instant stopped = databaseNow();
      await("a few thousand windows created while Kafka is away")
          .atMost(WAIT)
          .until(() -> idsCreatedSince(stopped).size() >= 3_000);
      await("the sweep reports the backlog's age")
          .atMost(WAIT)
          .until(() -> trigger.metrics().oldestUndispatched().compareTo(Duration.ofSeconds(3)) > 0);
      createdWhileDown.addAll(idsCreatedSince(stopped));
    } finally {
      stack.startKafka();
    }

    assertThat(trigger.dispatcher().backlogHighWater())
        .as("the dispatch queue never held more than its bound")
        .isLessThanOrEqualTo(BOUND);
    assertThat(
            trigger
                .metrics()
                .registry()
                .get("carillon.trigger.publish")
                .tag("result", "deferred")
                .counter()
                .count())
        .as("instances left to the sweep")
        .isPositive();
    await("every window created while Kafka was away is published once it is back")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(undispatchedAmong(createdWhileDown)).isZero());
    await("the backlog's age falls back")
        .atMost(WAIT)
        .until(() -> trigger.metrics().oldestUndispatched().compareTo(Duration.ofSeconds(3)) < 0);
    assertThat(published(createdWhileDown)).as("ids on the topic").containsAll(createdWhileDown);
  }

  @Test
  void with_zookeeper_away_the_trigger_steps_down_writes_nothing_and_leads_again() {
    new TaskStore(database.dsl())
        .applyAll(List.of(Tasks.everySeconds("beat", 1).overlap(OverlapPolicy.ALLOW).build()));
    TriggerService trigger = start("a", Map.of("zk.session-timeout", "4s"));
    await("the trigger leads and ticks").atMost(WAIT).until(() -> windows().size() >= 3);

    stack.stopZooKeeper();
    try {
      await("the trigger steps down").atMost(WAIT).until(() -> !trigger.isLeader());
      await("its tick thread stops").atMost(WAIT).until(() -> !trigger.loop().isTicking());
      long events = events();
      int rows = windows().size();
      await("nothing is written without leadership")
          .during(Duration.ofSeconds(5))
          .atMost(Duration.ofSeconds(10))
          .until(() -> events() == events && windows().size() == rows);
    } finally {
      stack.startZooKeeper();
    }

    await("it leads again").atMost(WAIT).until(trigger::isLeader);
    int atReturn = windows().size();
    await("windows continue").atMost(WAIT).until(() -> windows().size() >= atReturn + 3);
    List<Instance> rows = windows();
    assertThat(rows.stream().map(Instance::windowKey).distinct()).hasSize(rows.size());
    Instant first = rows.get(0).scheduledAt();
    Instant last = rows.get(rows.size() - 1).scheduledAt();
    assertThat(rows)
        .as("one window per second from %s to %s, the missed ones made up", first, last)
        .hasSize((int) Duration.between(first, last).toSeconds() + 1);
  }

  // ---------------------------------------------------------------- helpers

  private TriggerService start(String name, Map<String, String> extra) {
    Map<String, String> c = new HashMap<>();
    c.put("db.url", db.url());
    c.put("db.user", db.user());
    c.put("db.password", db.password());
    c.put("db.pool-size", "4");
    c.put("kafka.bootstrap", stack.kafkaBootstrap());
    c.put("zk.connect", stack.zkConnect());
    c.put("zk.session-timeout", "3s");
    c.put("admin.port", "0");
    // The control-plane API is not what these tests look at: any port, no tokens.
    c.put("api.port", "0");
    c.put("api.insecure-local", "true");
    c.put("api.bind-address", "127.0.0.1");
    c.put("instance.id", name);
    c.put("trigger.topic", topic);
    c.put("kafka.instances-partitions", "2");
    c.put("trigger.ack-timeout", "1s");
    c.put("trigger.dispatch-sweep", "500ms");
    c.put("trigger.redispatch-after", "30s");
    c.put("trigger.max-dispatch-backlog", Integer.toString(BOUND));
    c.putAll(extra);
    TriggerService s = TriggerService.start(Config.of(c), Clock.systemUTC());
    toClose.add(s);
    return s;
  }

  private Instant databaseNow() {
    return database
        .dsl()
        .select(org.jooq.impl.DSL.field("clock_timestamp()", org.jooq.impl.SQLDataType.INSTANT))
        .fetchSingle()
        .value1();
  }

  private Set<Long> idsCreatedSince(Instant t) {
    return new HashSet<>(
        database
            .dsl()
            .select(TASK_INSTANCE.ID)
            .from(TASK_INSTANCE)
            .where(TASK_INSTANCE.CREATED_AT.ge(t))
            .fetch(TASK_INSTANCE.ID));
  }

  private long dispatched() {
    return database.dsl().fetchCount(TASK_INSTANCE, TASK_INSTANCE.DISPATCHED_AT.isNotNull());
  }

  private long undispatchedAmong(Set<Long> ids) {
    return database
        .dsl()
        .fetchCount(
            TASK_INSTANCE, TASK_INSTANCE.ID.in(ids).and(TASK_INSTANCE.DISPATCHED_AT.isNull()));
  }

  private long events() {
    return database.dsl().fetchCount(INSTANCE_EVENT);
  }

  private List<Instance> windows() {
    List<Instance> rows = new ArrayList<>(instances.list("beat", null, null, 100_000));
    rows.sort(Comparator.comparing(Instance::scheduledAt));
    return rows;
  }

  /** The instance ids on the topic, read from the beginning until all of {@code wanted} came. */
  private Set<Long> published(Set<Long> wanted) {
    Set<Long> ids = new HashSet<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(
            KafkaSettings.of(stack.kafkaBootstrap()).consumerProps("check-" + UUID.randomUUID()))) {
      consumer.subscribe(List.of(topic));
      await("the topic holds every instance")
          .atMost(WAIT)
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                  ids.add(InstanceMessageCodec.decode(r.value()).instanceId());
                }
                return ids.containsAll(wanted);
              });
    }
    return ids;
  }
}
