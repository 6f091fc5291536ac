package dev.carillon.worker;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.awaitility.Awaitility.await;

import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.CachedQueueRouter;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.Topics;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.RetryStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;

/**
 * One isolated worker test environment: its own database, topic and consumer group on the shared
 * devstack, plus helpers to define tasks, create and publish instances, start workers and read back
 * state. Closes every worker it started.
 */
final class WorkerTestKit implements AutoCloseable {
  final DevStack stack = DevStack.shared();
  final String prefix;
  final String dbUrl;
  final Database db;

  /** Reads of instances and their events, as an operator sees them. */
  final OperatorStore instances;

  /** What another worker and the retry service write, for tests that play them. */
  final LeaseStore leases;

  final RetryStore retries;
  final WindowStore windows;
  final TaskStore tasks;
  final String topic;
  final int partitions;
  final String group;
  final KafkaSettings kafka;
  private final List<WorkerService> workers = new ArrayList<>();

  WorkerTestKit(String prefix, int partitions) {
    this.prefix = prefix;
    this.partitions = partitions;
    this.dbUrl = stack.createDatabase(prefix);
    this.db =
        Database.open(
            new DbSettings(dbUrl, stack.dbUser(), stack.dbPassword(), 4),
            DevStack.SESSION_TIME_ZONE_SQL);
    this.instances = new OperatorStore(db.dsl());
    this.leases = new LeaseStore(db.dsl());
    this.retries = new RetryStore(db.dsl());
    this.windows = new WindowStore(db.dsl());
    this.tasks = new TaskStore(db.dsl());
    String unique = UUID.randomUUID().toString().substring(0, 8);
    this.topic = "test." + prefix + "." + unique;
    this.group = prefix + "-" + unique;
    this.kafka = KafkaSettings.of(stack.kafkaBootstrap());
    try (Admin admin = Admin.create(kafka.adminProps())) {
      admin
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + topic, e);
    }
  }

  Map<String, String> config(String workerId, Map<String, String> extra) {
    Map<String, String> c = new HashMap<>();
    c.put("db.url", dbUrl);
    c.put("db.user", stack.dbUser());
    c.put("db.password", stack.dbPassword());
    c.put("db.pool-size", "6");
    c.put("kafka.bootstrap", stack.kafkaBootstrap());
    c.put("admin.port", "0");
    c.put("instance.id", workerId);
    c.put("worker.topic", topic);
    c.put("kafka.instances-partitions", Integer.toString(partitions));
    c.put("worker.group", group);
    c.put("worker.drain-timeout", "2s");
    c.put("worker.task-cache-ttl", "0s");
    c.putAll(extra);
    return c;
  }

  WorkerService worker(String workerId, Map<String, String> extra) {
    WorkerService w = WorkerService.start(Config.of(config(workerId, extra)));
    workers.add(w);
    return w;
  }

  /** Closes {@code w} with the kit (a worker started some other way). */
  void track(WorkerService w) {
    workers.add(w);
  }

  /** A worker with tracing and a task label cap of its own. */
  WorkerService worker(String workerId, dev.carillon.trace.Tracing tracing, int taskLabels) {
    WorkerSettings settings = WorkerSettings.from(Config.of(config(workerId, Map.of())));
    WorkerService w =
        WorkerService.start(
            settings,
            dev.carillon.worker.plugin.PluginRegistry.load(
                WorkerService.class.getClassLoader(), settings.pluginDir()),
            java.time.Clock.systemUTC(),
            tracing,
            new dev.carillon.metrics.TaskLabel(taskLabels));
    workers.add(w);
    return w;
  }

  void task(String id, String handler, String paramsJson) {
    TaskDefinition def =
        Tasks.daily(id)
            .handler(handler)
            .paramsJson(paramsJson)
            .timeout(Duration.ofMinutes(1))
            .build();
    tasks.applyAll(List.of(def));
  }

  /** A PENDING instance of {@code taskId} with a lease/deadline of {@code timeout}. */
  Instance instance(String taskId, String key, Duration timeout) {
    return windows.create(List.of(Tasks.pendingKey(taskId, key, timeout)), "test").get(0);
  }

  /**
   * A PENDING instance of {@code taskId} due {@code in} from now by the database's clock (a window
   * created ahead of its fire time), with a 30 s timeout.
   */
  Instance dueIn(String taskId, String key, Duration in) {
    Instant due = databaseNow().plus(in);
    return windows
        .create(
            List.of(
                NewInstance.pending(
                    taskId,
                    new Window(key, due, due.plusSeconds(60)),
                    due,
                    Origin.SCHEDULE,
                    Duration.ofSeconds(30),
                    0)),
            "test")
        .get(0);
  }

  /** PostgreSQL's clock now ({@code clock_timestamp()}). */
  Instant databaseNow() {
    return leases.databaseTime();
  }

  /**
   * Runs one due instance of {@code taskId} through {@code worker}'s group and waits for its
   * SUCCESS: once it ran, the worker holds its partitions and fetches, so records published next
   * reach it at once (a cold join can outlast a test's lead on a busy machine).
   */
  void awaitJoined(String taskId) {
    Instance warm = dueIn(taskId, "warm", Duration.ZERO);
    publish(warm);
    await("a worker to join the group and run a due instance")
        .atMost(Duration.ofSeconds(60))
        .until(() -> find(warm.id()).status() == InstanceStatus.SUCCESS);
  }

  void publish(Instance... list) {
    publishTo(topic, list);
  }

  /**
   * Creates the instances topic of {@code queue} next to the kit's ({@link Topics#instances}) with
   * the kit's partitions, as the create-topics step does for a queue of {@code kafka.queues}:
   * workers and publishers create no topics.
   */
  String queueTopic(String queue) {
    String name = Topics.instances(topic, queue);
    stack.createTopic(name, partitions);
    return name;
  }

  /** Creates another topic on the stack, for a worker that must not share the kit's. */
  String newTopic(String suffix) {
    String name = topic + "." + suffix;
    try (Admin admin = Admin.create(kafka.adminProps())) {
      admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + name, e);
    }
    return name;
  }

  /** Creates a compacted topic on the stack, as the create-topics step makes the config topic. */
  String newCompactedTopic(String suffix) {
    String name = topic + "." + suffix;
    try (Admin admin = Admin.create(kafka.adminProps())) {
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
    return name;
  }

  /**
   * What the retry service does with a RUNNING instance whose worker died or froze, done now: its
   * lease ends (as if its length had passed without a renewal) and the expiry scan moves it to
   * TIMEOUT.
   */
  void expireLease(long id) {
    db.dsl()
        .update(TASK_INSTANCE)
        .set(TASK_INSTANCE.LEASE_UNTIL, Instant.now().minusSeconds(1))
        .where(TASK_INSTANCE.ID.eq(id))
        .execute();
    if (retries.expireLeases(100, "test-retry", retryLeader()).stream()
        .noneMatch(i -> i.id() == id)) {
      throw new IllegalStateException("instance " + id + " was not expired: " + find(id));
    }
  }

  /**
   * What the retry service does with a FAILED or TIMEOUT instance whose policy allows a retry now:
   * RETRY_WAIT, then PENDING, then published again.
   */
  Instance retryNow(long id) {
    Instance failed = find(id);
    Fence leader = retryLeader();
    if (!retries.scheduleRetry(
        failed, Instant.now().minusSeconds(1), 1L, "test-retry", "retry", leader)) {
      throw new IllegalStateException("instance " + id + " could not be retried: " + failed);
    }
    if (retries.promoteDueRetries(100, "test-retry", leader).stream()
        .noneMatch(i -> i.id() == id)) {
      throw new IllegalStateException("instance " + id + " was not promoted: " + find(id));
    }
    Instance pending = find(id);
    publish(pending);
    return pending;
  }

  /** The retry leader's writes are fenced: this kit plays a leader that has just taken over. */
  private Fence retryLeader() {
    return new EpochStore(db.dsl()).begin("retry", "worker-test-kit");
  }

  void publishTo(String topic, Instance... list) {
    // Each instance to its task's queue's topic, as the trigger and the retry service publish.
    try (InstancePublisher p =
        new InstancePublisher(
            kafka,
            topic,
            Duration.ofSeconds(10),
            new CachedQueueRouter(tasks::queues, Duration.ZERO, System::nanoTime))) {
      List<InstanceMessage> messages = new ArrayList<>();
      for (Instance i : list) {
        messages.add(InstanceMessage.of(i.id(), i.taskId(), i.windowKey(), Instant.now()));
      }
      if (p.publish(messages).size() != messages.size()) {
        throw new IllegalStateException("Kafka did not acknowledge every test message");
      }
    }
  }

  /** Sends raw values to explicit partitions (poison records, duplicates across partitions). */
  void sendRaw(List<Integer> partitions, List<byte[]> values) {
    Map<String, Object> props = kafka.producerProps();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
      for (int i = 0; i < values.size(); i++) {
        producer.send(new ProducerRecord<>(topic, partitions.get(i), "raw", values.get(i))).get();
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot send raw records to " + topic, e);
    }
  }

  Instance find(long id) {
    return instances.find(id).orElseThrow();
  }

  int runningOn(String workerId) {
    return db.dsl()
        .fetchCount(
            TASK_INSTANCE,
            TASK_INSTANCE.STATUS.eq("RUNNING").and(TASK_INSTANCE.WORKER_ID.eq(workerId)));
  }

  /** The group's committed offsets by partition number. */
  Map<Integer, Long> committed() {
    try (Admin admin = Admin.create(kafka.adminProps())) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(30, TimeUnit.SECONDS);
      Map<Integer, Long> out = new HashMap<>();
      offsets.forEach(
          (tp, o) -> {
            if (o != null && tp.topic().equals(topic)) {
              out.put(tp.partition(), o.offset());
            }
          });
      return out;
    } catch (Exception e) {
      throw new IllegalStateException("cannot read offsets of " + group, e);
    }
  }

  @Override
  public void close() {
    workers.forEach(WorkerService::close);
    db.close();
  }
}
