package dev.carillon.trigger;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.Durations;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.testing.SkewedClock;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import dev.carillon.trigger.dispatch.Dispatcher;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
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
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A trigger on a host whose clock is off ticks on PostgreSQL's time: 30 s fast it creates no window
 * before its fire time (by the database's clock, the one claims use), 30 s slow none late, and when
 * the host's clock steps back into line none twice and none lost. With {@code trigger.create-ahead}
 * its ticks run that long before each second and create the second's windows then, never earlier
 * than the setting allows by that clock, and the dispatcher publishes each no earlier than {@link
 * Dispatcher#PUBLISH_AHEAD} before its fire time.
 */
@Timeout(120)
class ClockSkewTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Duration AHEAD = Duration.ofMillis(300);
  // The tick's "now" is the database's clock as measured over one round trip.
  private static final Duration MEASUREMENT = Duration.ofMillis(50);

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private DbSettings db;
  private String topic;
  private Database database;
  private OperatorStore instances;

  @BeforeEach
  void open() {
    db = TestDatabase.settings("clock_skew");
    database = Database.open(db);
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
  void a_trigger_whose_clock_is_off_creates_no_window_early_late_or_twice() {
    SkewedClock host = new SkewedClock(Clock.systemUTC(), Duration.ofSeconds(30));
    TriggerService trigger = start(host);
    await("the fast trigger leads and creates windows")
        .atMost(WAIT)
        .until(() -> trigger.isLeader() && windows().size() >= 5);

    assertThat(createdBeforeTheirTime()).as("windows created before their fire time").isZero();
    assertThat(((Number) trigger.health().details().get("clockSkewMs")).longValue())
        .as("the database's clock minus this host's")
        .isCloseTo(-30_000L, within(1_000L));
    assertThat(trigger.health().details()).containsEntry("clockSkewed", true);
    assertThat(trigger.health().ready()).as("ticking on the database's time").isTrue();

    host.setSkew(Duration.ofSeconds(-30));
    Instant slowFrom = databaseNow();
    await("the slow trigger creates windows")
        .atMost(WAIT)
        .until(() -> windowsCreatedAfter(slowFrom).size() >= 5);
    for (Instance i : windowsCreatedAfter(slowFrom)) {
      assertThat(Duration.between(i.scheduledAt(), i.createdAt()))
          .as("fire lag of %s on a host 30 s slow", i.windowKey())
          .isLessThan(Duration.ofSeconds(2));
    }

    host.setSkew(Duration.ZERO);
    Instant correctedFrom = databaseNow();
    await("windows after the host's clock stepped back")
        .atMost(WAIT)
        .until(() -> windowsCreatedAfter(correctedFrom).size() >= 3);
    assertThat(trigger.health().details()).containsEntry("clockSkewed", false);

    List<Instance> rows = windows();
    assertThat(rows.stream().map(Instance::windowKey).distinct()).hasSize(rows.size());
    Instant first = rows.get(0).scheduledAt();
    Instant last = rows.get(rows.size() - 1).scheduledAt();
    assertThat(rows)
        .as("one window per second from %s to %s, none twice, none lost", first, last)
        .hasSize((int) Duration.between(first, last).toSeconds() + 1);
    assertThat(createdBeforeTheirTime()).as("windows created before their fire time").isZero();
  }

  @Test
  void windows_are_created_ahead_within_the_setting_and_published_on_their_instant() {
    TriggerService trigger =
        start(Clock.systemUTC(), Map.of("trigger.create-ahead", Durations.format(AHEAD)));
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
    List<InstanceMessage> published = read(byId.keySet());
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
  private List<InstanceMessage> read(java.util.Set<Long> ids) {
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

  private TriggerService start(Clock clock) {
    return start(clock, Map.of());
  }

  private TriggerService start(Clock clock, Map<String, String> extra) {
    Map<String, String> c = new HashMap<>();
    c.put("db.url", db.url());
    c.put("db.user", db.user());
    c.put("db.password", db.password());
    c.put("db.pool-size", "4");
    c.put("kafka.bootstrap", DevStack.shared().kafkaBootstrap());
    c.put("zk.connect", DevStack.shared().zkConnect());
    c.put("zk.session-timeout", "3s");
    c.put("admin.port", "0");
    // The control-plane API is not what these tests look at: any port, no tokens.
    c.put("api.port", "0");
    c.put("api.insecure-local", "true");
    c.put("api.bind-address", "127.0.0.1");
    c.put("instance.id", "skewed");
    // Created up front, as a deployment does (the services only check their topics).
    topic = "skew-" + UUID.randomUUID();
    DevStack.shared().createTopic(topic, 2);
    c.put("trigger.topic", topic);
    c.put("kafka.instances-partitions", "2");
    c.putAll(extra);
    TriggerService s = TriggerService.start(Config.of(c), clock);
    toClose.add(s);
    return s;
  }

  /** Rows whose insert (its transaction's start, database time) came before their fire time. */
  private int createdBeforeTheirTime() {
    return database
        .dsl()
        .fetchCount(
            TASK_INSTANCE,
            TASK_INSTANCE
                .TASK_ID
                .eq("beat")
                .and(TASK_INSTANCE.CREATED_AT.lt(TASK_INSTANCE.SCHEDULED_AT)));
  }

  private Instant databaseNow() {
    return database
        .dsl()
        .select(DSL.field("clock_timestamp()", SQLDataType.INSTANT))
        .fetchSingle()
        .value1();
  }

  private List<Instance> windowsCreatedAfter(Instant t) {
    return windows().stream().filter(i -> i.createdAt().isAfter(t)).toList();
  }

  private List<Instance> windows() {
    List<Instance> rows = new ArrayList<>(instances.list("beat", null, null, 100_000));
    rows.sort(Comparator.comparing(Instance::scheduledAt));
    return rows;
  }
}
