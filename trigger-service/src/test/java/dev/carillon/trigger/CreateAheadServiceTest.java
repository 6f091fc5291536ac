package dev.carillon.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import dev.carillon.trigger.dispatch.Dispatcher;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code trigger.create-ahead} on the running service: its ticks run that long before each second,
 * create the second's windows then (by the database's clock, never earlier than the setting
 * allows), and the dispatcher publishes each no earlier than Kafka's delivery time before its fire
 * time ({@link Dispatcher#PUBLISH_AHEAD}).
 */
@Timeout(120)
class CreateAheadServiceTest {
  private static final Duration AHEAD = Duration.ofMillis(300);
  // The tick's "now" is the database's clock as measured over one round trip.
  private static final Duration MEASUREMENT = Duration.ofMillis(50);

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private DbSettings db;
  private OperatorStore instances;

  @BeforeEach
  void open() {
    db = TestDatabase.settings("create_ahead_service");
    Database database = Database.open(db);
    toClose.add(database);
    instances = new OperatorStore(database.dsl());
    new TaskStore(database.dsl())
        .applyAll(List.of(Tasks.everySeconds("beat", 1).overlap(OverlapPolicy.ALLOW).build()));
  }

  @AfterEach
  void close() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  @Test
  void windows_are_created_ahead_within_the_setting_and_published_on_their_instant() {
    String topic = "ahead-" + UUID.randomUUID();
    DevStack.shared().createTopic(topic, 2);
    TriggerService trigger = start(topic);
    await("the trigger leads and creates windows")
        .atMost(Duration.ofSeconds(30))
        .until(() -> trigger.isLeader() && windows().size() >= 6);

    // The first window may be created by the first tick after leadership, late; so may one whose
    // tick the machine delayed. None may be created earlier than the setting allows.
    List<Instance> rows = windows().subList(1, windows().size());
    int ahead = 0;
    for (Instance i : rows) {
      Duration early = Duration.between(i.createdAt(), i.scheduledAt());
      assertThat(early)
          .as("window %s created %s before its fire time", i.windowKey(), early)
          .isLessThanOrEqualTo(AHEAD.plus(MEASUREMENT));
      if (!early.isNegative() && !early.isZero()) {
        ahead++;
      }
    }
    assertThat(ahead).as("windows created ahead of %d", rows.size()).isGreaterThan(rows.size() / 2);

    Map<Long, Instance> byId =
        windows().stream().collect(Collectors.toMap(Instance::id, Function.identity()));
    List<InstanceMessage> published = read(topic, byId.keySet());
    for (InstanceMessage m : published) {
      Instance i = byId.get(m.instanceId());
      if (i != null) {
        assertThat(m.publishedAt())
            .as("window %s published at %s", i.windowKey(), m.publishedAt())
            .isAfterOrEqualTo(i.scheduledAt().minus(Dispatcher.PUBLISH_AHEAD));
      }
    }
  }

  /** The topic's messages, read until every one of {@code ids} was among them. */
  private List<InstanceMessage> read(String topic, java.util.Set<Long> ids) {
    Map<String, Object> props =
        new HashMap<>(
            KafkaSettings.of(DevStack.shared().kafkaBootstrap())
                .consumerProps("ahead-reader-" + UUID.randomUUID()));
    List<InstanceMessage> out = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      java.util.Set<Long> seen = new java.util.HashSet<>();
      await("a message for every window created")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  InstanceMessage m = InstanceMessageCodec.decode(r.value());
                  out.add(m);
                  seen.add(m.instanceId());
                }
                return seen.containsAll(ids);
              });
    }
    return out;
  }

  private TriggerService start(String topic) {
    Map<String, String> c = new HashMap<>();
    c.put("db.url", db.url());
    c.put("db.user", db.user());
    c.put("db.password", db.password());
    c.put("db.pool-size", "4");
    c.put("kafka.bootstrap", DevStack.shared().kafkaBootstrap());
    c.put("zk.connect", DevStack.shared().zkConnect());
    c.put("zk.session-timeout", "3s");
    c.put("admin.port", "0");
    c.put("api.port", "0");
    c.put("api.insecure-local", "true");
    c.put("api.bind-address", "127.0.0.1");
    c.put("instance.id", "ahead");
    c.put("trigger.topic", topic);
    c.put("kafka.instances-partitions", "2");
    c.put("trigger.create-ahead", "300ms");
    TriggerService s = TriggerService.start(Config.of(c), Clock.systemUTC());
    toClose.add(s);
    return s;
  }

  private List<Instance> windows() {
    List<Instance> rows = new ArrayList<>(instances.list("beat", null, null, 100_000));
    rows.sort(java.util.Comparator.comparing(Instance::scheduledAt));
    return rows;
  }
}
