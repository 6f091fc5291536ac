package dev.carillon.trigger.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.election.Fencing;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.EventKey;
import dev.carillon.model.task.EventTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.EpochStore;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.TriggerQueries;
import dev.carillon.store.WindowStore;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.TestDatabase;
import dev.carillon.trigger.tick.DefinitionCache;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Event triggers against the devstack's real Kafka and PostgreSQL. */
@ExtendWith(DevStackExtension.class)
@Timeout(240)
class EventConsumerTest {
  private static final Instant T0 = Instant.parse("2026-11-29T08:00:00Z");

  private Database db;
  private OperatorStore instances;
  private EventConsumer consumer;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<Instance> dispatched = new CopyOnWriteArrayList<>();
  private final KafkaSettings kafka = KafkaSettings.of(DevStack.shared().kafkaBootstrap());
  private String topic;

  @BeforeEach
  void open() {
    db = TestDatabase.fresh("events");
    instances = new OperatorStore(db.dsl());
    topic = "orders-" + UUID.randomUUID();
    consumer =
        new EventConsumer(
            kafka,
            "test-" + topic,
            new DefinitionCache(new TriggerQueries(db.dsl())),
            new WindowStore(db.dsl()),
            "trigger:1",
            new SettableClock(T0),
            dispatched::addAll,
            () -> true,
            Fencing.fixed(new EpochStore(db.dsl()).begin("trigger", "test")),
            registry,
            Duration.ZERO);
  }

  @AfterEach
  void close() {
    consumer.stop();
    db.close();
  }

  private void apply(String topic, String key, Duration coalesce) {
    EventTrigger event =
        new EventTrigger(
            topic, EventKey.parse("event.key", key), coalesce, 0, WindowKind.DAILY, ZoneOffset.UTC);
    new TaskStore(db.dsl())
        .applyAll(
            List.of(TaskDefinition.builder("on-order").handler("noop").trigger(event).build()));
  }

  private void send(List<ProducerRecord<String, byte[]>> records) {
    try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(kafka.producerProps())) {
      records.forEach(p::send);
      p.flush();
    }
  }

  private ProducerRecord<String, byte[]> record(String key, String json, Instant at) {
    return new ProducerRecord<>(
        topic, null, at.toEpochMilli(), key, json.getBytes(StandardCharsets.UTF_8));
  }

  /** Waits until consumer group {@code group} has no member. */
  private void awaitNoMembers(String group) {
    try (Admin admin = Admin.create(kafka.adminProps())) {
      await("the old member to leave group " + group)
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> describe(admin, group).members().isEmpty());
    }
  }

  private static ConsumerGroupDescription describe(Admin admin, String group) throws Exception {
    return admin
        .describeConsumerGroups(List.of(group))
        .describedGroups()
        .get(group)
        .get(10, TimeUnit.SECONDS);
  }

  /**
   * Polls until {@code expected} records have been seen, with a deadline; on timeout the message
   * says what the group coordinator knew (state, members, assignment, committed offsets).
   */
  private EventConsumer.Poll drain(int expected) {
    AtomicInteger records = new AtomicInteger();
    AtomicInteger created = new AtomicInteger();
    AtomicInteger coalesced = new AtomicInteger();
    AtomicInteger malformed = new AtomicInteger();
    try {
      await("the consumer to see " + expected + " records")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(10))
          .until(
              () -> {
                EventConsumer.Poll p = consumer.pollOnce(Duration.ofMillis(200));
                records.addAndGet(p.records());
                created.addAndGet(p.created());
                coalesced.addAndGet(p.coalesced());
                malformed.addAndGet(p.malformed());
                return records.get() >= expected;
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          records.get() + " of " + expected + " records seen; " + groupState("test-" + topic), e);
    }
    return new EventConsumer.Poll(
        records.get(), created.get(), coalesced.get(), malformed.get(), 0);
  }

  private String groupState(String group) {
    try (Admin admin = Admin.create(kafka.adminProps())) {
      ConsumerGroupDescription d = describe(admin, group);
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(10, TimeUnit.SECONDS);
      return "group "
          + group
          + " is "
          + d.groupState()
          + " with members "
          + d.members()
          + ", committed "
          + committed;
    } catch (Exception e) {
      return "group " + group + " could not be described: " + e;
    }
  }

  private double counter(String outcome) {
    var c = registry.find("carillon.trigger.events").tag("outcome", outcome).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void the_same_event_delivered_five_times_runs_once_and_malformed_ones_are_skipped() {
    apply(topic, "json:orderId", Duration.ZERO);
    consumer.pollOnce(Duration.ofMillis(100)); // subscribes
    String order = "{\"orderId\":\"o-17\",\"total\":12}";
    send(
        List.of(
            record("k", order, T0),
            record("k", order, T0.plusSeconds(1)),
            record("k", "not json", T0),
            record("k", order, T0.plusSeconds(2)),
            record("k", "{\"total\":3}", T0),
            record("k", order, T0.plusSeconds(3)),
            record("k", order, T0.plusSeconds(4))));
    EventConsumer.Poll seen = drain(7);
    assertThat(seen.created()).isEqualTo(1);
    assertThat(seen.coalesced()).isEqualTo(4);
    assertThat(seen.malformed()).isEqualTo(2);
    assertThat(counter("malformed")).isEqualTo(2);
    Instance only = instances.findByWindow("on-order", "o-17").orElseThrow();
    assertThat(only.origin()).isEqualTo(Origin.EVENT);
    assertThat(dispatched).extracting(Instance::id).containsExactly(only.id());

    // The offsets were committed after the insert: a new consumer in the group reads nothing old.
    // It is assigned the partitions once the old member has left; a leave the coordinator missed
    // holds that up for the session timeout (45 s), which drain's deadline should not have to hold.
    consumer.stop();
    awaitNoMembers("test-" + topic);
    send(List.of(record("k", order, T0.plusSeconds(5))));
    EventConsumer.Poll again = drain(1);
    assertThat(again.created()).isZero();
    assertThat(again.coalesced()).isEqualTo(1);
    assertThat(instances.countByStatus("on-order").values().stream().mapToInt(i -> i).sum())
        .isEqualTo(1);
  }

  @Test
  void a_storm_of_10000_events_is_coalesced_per_key_and_bucket() {
    apply(topic, "key", Duration.ofSeconds(30));
    consumer.pollOnce(Duration.ofMillis(100));
    // 10 keys, event times spread over one minute starting on a 30 s boundary: two buckets each.
    List<ProducerRecord<String, byte[]>> storm = new java.util.ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      storm.add(record("device-" + (i % 10), "{}", T0.plusMillis(i * 6L)));
    }
    send(storm);
    EventConsumer.Poll seen = drain(10_000);
    assertThat(seen.created()).isEqualTo(20);
    assertThat(seen.coalesced()).isEqualTo(9_980);
    assertThat(counter("coalesced")).isEqualTo(9_980);
    assertThat(instances.findByWindow("on-order", "device-3@2026-11-29T08:00:00Z")).isPresent();
    Instance second =
        instances.findByWindow("on-order", "device-3@2026-11-29T08:00:30Z").orElseThrow();
    assertThat(second.windowStart()).isEqualTo(T0.plusSeconds(30));
    assertThat(second.windowEnd()).isEqualTo(T0.plusSeconds(60));
  }
}
