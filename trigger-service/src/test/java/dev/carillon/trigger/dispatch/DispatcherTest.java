package dev.carillon.trigger.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.election.Fencing;
import dev.carillon.kafka.CachedQueueRouter;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.kafka.Topics;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.store.Database;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import dev.carillon.trigger.tick.TriggerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DevStackExtension.class)
@Timeout(120)
class DispatcherTest {
  private static Database db;
  private static Fence fence;
  private static OperatorStore instances;
  private static WindowStore windows;

  @BeforeAll
  static void open() {
    db = TestDatabase.fresh("dispatch");
    instances = new OperatorStore(db.dsl());
    windows = new WindowStore(db.dsl());
    fence = new EpochStore(db.dsl()).begin("trigger", "test");
    new TaskStore(db.dsl())
        .applyAll(
            List.of(
                Tasks.daily("stamped").build(),
                Tasks.daily("queued-late").queue("late").build(),
                Tasks.daily("swept").build()));
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void a_published_row_is_stamped_after_the_delay_unless_a_worker_claimed_it_first() {
    Instance waiting =
        windows
            .create(List.of(Tasks.pending("stamped", "2026-11-01", Duration.ofMinutes(5))), "t")
            .get(0);
    Instance claimedSoon =
        windows
            .create(List.of(Tasks.pending("stamped", "2026-11-02", Duration.ofMinutes(5))), "t")
            .get(0);
    String topic = "dispatch-" + UUID.randomUUID();
    DevStack.shared().createTopic(topic, 2);
    KafkaSettings kafka = KafkaSettings.of(DevStack.shared().kafkaBootstrap());
    try (InstancePublisher publisher =
            new InstancePublisher(kafka, topic, InstancePublisher.DEFAULT_ACK_TIMEOUT);
        Dispatcher dispatcher = dispatcher(publisher, Duration.ofMinutes(10))) {
      dispatcher.start();
      long submitted = System.nanoTime();
      dispatcher.submit(List.of(waiting, claimedSoon));
      // A worker claims one of them as soon as it is published (here: at once).
      assertThat(new LeaseStore(db.dsl()).claim(List.of(claimedSoon.id()), "worker-1")).hasSize(1);

      await("the waiting instance to be dispatched once Kafka is back")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(instances.find(waiting.id()).orElseThrow().dispatchedAt())
                      .isNotNull());
      assertThat(Duration.ofNanos(System.nanoTime() - submitted))
          .as("stamped no earlier than the delay after the acknowledgement")
          .isGreaterThanOrEqualTo(dispatcher.stampDelay());
      assertThat(dispatcher.stampDelay())
          .as("half the sweep interval, capped")
          .isEqualTo(Dispatcher.MAX_STAMP_DELAY);
      Instance claimed = instances.find(claimedSoon.id()).orElseThrow();
      assertThat(claimed.status()).isEqualTo(InstanceStatus.RUNNING);
      assertThat(claimed.dispatchedAt()).as("a claimed row is not stamped").isNull();
    }
  }

  /**
   * Created ahead ({@code trigger.create-ahead}): held until its {@code scheduled_at} on the
   * dispatcher's clock, counted in the backlog meanwhile, then published and stamped; the sweep
   * does not publish it early either, however long it has waited.
   */
  @Test
  void an_instance_created_ahead_is_held_until_just_before_its_fire_time() throws Exception {
    Instant fireTime = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
    Instance ahead =
        windows
            .create(
                List.of(
                    NewInstance.pending(
                        "swept",
                        new Window("ahead", fireTime, fireTime.plusSeconds(10)),
                        fireTime,
                        Origin.SCHEDULE,
                        Duration.ofMinutes(5),
                        3)),
                "t")
            .get(0);
    // Unstamped for longer than the sweep's grace: only its fire time keeps the sweep off it.
    db.dsl()
        .execute(
            "UPDATE task_instance SET updated_at = updated_at - interval '1 hour' WHERE id = ?",
            ahead.id());
    String topic = "ahead-" + UUID.randomUUID();
    DevStack.shared().createTopic(topic, 2);
    SettableClock clock = new SettableClock(fireTime.minusMillis(200));
    KafkaSettings kafka = KafkaSettings.of(DevStack.shared().kafkaBootstrap());
    try (InstancePublisher publisher =
            new InstancePublisher(kafka, topic, InstancePublisher.DEFAULT_ACK_TIMEOUT);
        Dispatcher dispatcher =
            new Dispatcher(
                publisher,
                windows,
                clock,
                Duration.ofMinutes(1),
                Duration.ofMinutes(10),
                () -> true,
                Fencing.fixed(fence),
                new TriggerMetrics(new SimpleMeterRegistry()))) {
      dispatcher.submit(List.of(ahead));

      assertThat(dispatcher.dispatchOnce()).as("acknowledged before its fire time").isZero();
      assertThat(dispatcher.held()).isEqualTo(1);
      assertThat(dispatcher.backlog()).as("held instances count in the backlog").isEqualTo(1);
      assertThat(endOffsets(topic)).isZero();

      Instant publishAt = fireTime.minus(Dispatcher.PUBLISH_AHEAD);
      clock.set(publishAt.minusMillis(1));
      assertThat(dispatcher.dispatchOnce()).isZero();
      assertThat(endOffsets(topic)).isZero();

      clock.set(publishAt);
      assertThat(dispatcher.dispatchOnce())
          .as("published Kafka's delivery time ahead of its instant")
          .isEqualTo(1);
      assertThat(dispatcher.held()).isZero();
      assertThat(endOffsets(topic)).isEqualTo(1);
      assertThat(instances.find(ahead.id()).orElseThrow().dispatchedAt()).isNotNull();
    }
  }

  @Test
  void an_instance_whose_queue_has_no_topic_is_not_lost_and_is_dispatched_once_the_topic_exists()
      throws Exception {
    Instance late =
        windows
            .create(List.of(Tasks.pending("queued-late", "2026-11-05", Duration.ofMinutes(5))), "t")
            .get(0);
    String base = "dispatch-" + UUID.randomUUID();
    String lateTopic = Topics.instances(base, "late");
    DevStack.shared().createTopic(base, 2);
    KafkaSettings kafka = KafkaSettings.of(DevStack.shared().kafkaBootstrap());
    try (Admin admin = Admin.create(kafka.adminProps());
        InstancePublisher publisher =
            new InstancePublisher(
                kafka,
                base,
                InstancePublisher.DEFAULT_ACK_TIMEOUT,
                new CachedQueueRouter(
                    new TaskStore(db.dsl())::queues, Duration.ZERO, System::nanoTime));
        Dispatcher dispatcher = dispatcher(publisher, Duration.ofMillis(200))) {
      dispatcher.start();
      dispatcher.submit(List.of(late));

      // The first publish and at least one sweep after it find the topic missing.
      await("the publisher to hold the instance back twice: at submit and at a sweep")
          .atMost(Duration.ofSeconds(30))
          .until(() -> publisher.heldBackForMissingTopic() >= 2);
      Instance held = instances.find(late.id()).orElseThrow();
      assertThat(held.status()).isEqualTo(InstanceStatus.PENDING);
      assertThat(held.dispatchedAt()).as("not stamped: nothing was acknowledged").isNull();
      assertThat(TopicAdmin.exists(admin, lateTopic, Duration.ofSeconds(10)))
          .as("the publisher created no topic (the broker auto-creates on a producer's request)")
          .isEqualTo(TopicAdmin.Presence.MISSING);

      DevStack.shared().createTopic(lateTopic, 2);

      await("the sweep to publish the instance once the create-topics step made its topic")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertThat(instances.find(late.id()).orElseThrow().dispatchedAt()).isNotNull());
      long records = endOffsets(lateTopic);
      assertThat(records).as("the instance's message is in its queue's topic").isPositive();
    }
  }

  @Test
  void instances_beyond_the_queue_bound_are_counted_and_left_undispatched_for_the_sweep() {
    List<Instance> created =
        windows.create(
            List.of(
                Tasks.pending("stamped", "2026-11-03", Duration.ofMinutes(5)),
                Tasks.pending("stamped", "2026-11-04", Duration.ofMinutes(5)),
                Tasks.pending("stamped", "2026-11-05", Duration.ofMinutes(5))),
            "t");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    KafkaSettings kafka = KafkaSettings.of(DevStack.shared().kafkaBootstrap());
    try (InstancePublisher publisher =
            new InstancePublisher(kafka, "unused", InstancePublisher.DEFAULT_ACK_TIMEOUT);
        Dispatcher dispatcher =
            new Dispatcher(
                publisher,
                windows,
                Clock.systemUTC(),
                Duration.ofMinutes(1),
                Duration.ofMinutes(10),
                () -> true,
                Fencing.fixed(fence),
                new TriggerMetrics(registry),
                2)) {
      dispatcher.submit(created);

      assertThat(dispatcher.backlog()).isEqualTo(2);
      assertThat(
              registry.get("carillon.trigger.publish").tag("result", "deferred").counter().count())
          .isEqualTo(1.0);
      assertThat(instances.find(created.get(2).id()).orElseThrow().dispatchedAt())
          .as("left undispatched, for the sweep")
          .isNull();
    }
  }

  /**
   * A backlog left in the database (a Kafka outage, a full queue) drains at Kafka's pace: a sweep
   * that read a full batch sweeps again in the next round, not a sweep interval (here 10 minutes)
   * later. Before, one batch of 1,000 went out per interval.
   */
  @Test
  void a_backlog_deeper_than_one_batch_is_swept_batch_after_batch_not_one_per_interval()
      throws Exception {
    int rows = Dispatcher.BATCH * 2 + 500;
    List<dev.carillon.model.instance.NewInstance> backlog = new java.util.ArrayList<>();
    for (int n = 0; n < rows; n++) {
      backlog.add(Tasks.pendingKey("swept", "k" + n, Duration.ofMinutes(5)));
    }
    windows.create(backlog, "t");
    // Left undispatched an hour ago, as after an outage; the sweep leaves younger rows alone.
    db.dsl()
        .execute(
            "UPDATE task_instance SET updated_at = updated_at - interval '1 hour' WHERE task_id = ?",
            "swept");
    String topic = "swept-" + UUID.randomUUID();
    DevStack.shared().createTopic(topic, 2);
    KafkaSettings kafka = KafkaSettings.of(DevStack.shared().kafkaBootstrap());
    try (InstancePublisher publisher =
            new InstancePublisher(kafka, topic, InstancePublisher.DEFAULT_ACK_TIMEOUT);
        Dispatcher dispatcher = dispatcher(publisher, Duration.ofMinutes(10))) {
      dispatcher.start();

      await("every row of the backlog stamped, long before a second sweep interval")
          .atMost(Duration.ofSeconds(60))
          .until(() -> undispatched("swept") == 0);
      assertThat(endOffsets(topic)).as("each row published once").isEqualTo(rows);
    }
  }

  private static long undispatched(String task) {
    Object count =
        db.dsl()
            .fetchValue(
                "SELECT count(*) FROM task_instance WHERE task_id = ? AND dispatched_at IS NULL",
                task);
    return ((Number) count).longValue();
  }

  /**
   * A leading dispatcher (its fence current, re-dispatching after a minute) sweeping every {@code
   * sweepEvery}.
   */
  private static Dispatcher dispatcher(InstancePublisher publisher, Duration sweepEvery) {
    return new Dispatcher(
        publisher,
        windows,
        Clock.systemUTC(),
        Duration.ofMinutes(1),
        sweepEvery,
        () -> true,
        Fencing.fixed(fence),
        new TriggerMetrics(new SimpleMeterRegistry()));
  }

  /** The records in both partitions of {@code topic}. */
  private static long endOffsets(String topic) throws Exception {
    KafkaSettings kafka = KafkaSettings.of(DevStack.shared().kafkaBootstrap());
    try (Admin admin = Admin.create(kafka.adminProps())) {
      return admin
          .listOffsets(
              java.util.Map.of(
                  new TopicPartition(topic, 0), OffsetSpec.latest(),
                  new TopicPartition(topic, 1), OffsetSpec.latest()))
          .all()
          .get(30, TimeUnit.SECONDS)
          .values()
          .stream()
          .mapToLong(ListOffsetsResultInfo::offset)
          .sum();
    }
  }
}
