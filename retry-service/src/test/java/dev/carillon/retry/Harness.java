package dev.carillon.retry;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static org.awaitility.Awaitility.await;

import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.tuning.ConfigSigner;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.Lease;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.Outcome;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import dev.carillon.testsupport.Tasks;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGeneratorFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One test class's world: a fresh database on the shared devstack, its own instances and config
 * topics, retry services started against them, and the store calls a worker makes (claim,
 * complete), which is exactly what a worker does.
 */
final class Harness implements AutoCloseable {
  final DevStack stack = DevStack.shared();
  final String dbUrl;
  final Database db;
  final WindowStore windows;
  final LeaseStore leases;
  final OperatorStore operator;
  final TaskStore tasks;
  final String instancesTopic = "test.instances." + UUID.randomUUID();
  final String configTopic = "test.config." + UUID.randomUUID();
  private final List<AutoCloseable> open = new ArrayList<>();
  private final List<RetryService> services = new ArrayList<>();

  Harness(String prefix) {
    dbUrl = stack.createDatabase(prefix);
    // Every test session runs in the odd zone; the services' own pools run in the JVM's zone.
    db =
        Database.open(
            new DbSettings(dbUrl, stack.dbUser(), stack.dbPassword(), 8),
            DevStack.SESSION_TIME_ZONE_SQL);
    windows = new WindowStore(db.dsl());
    leases = new LeaseStore(db.dsl());
    operator = new OperatorStore(db.dsl());
    tasks = new TaskStore(db.dsl());
    // Created up front, as a deployment does; see DevStack.createTopic for why not auto-created.
    stack.createTopic(instancesTopic, INSTANCE_PARTITIONS);
    createCompacted(configTopic);
  }

  /** The config topic as the create-topics step makes it: one partition, compacted. */
  void createCompacted(String topic) {
    try (Admin admin = Admin.create(KafkaSettings.of(stack.kafkaBootstrap()).adminProps())) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, 1, (short) 1)
                      .configs(
                          Map.of(
                              TopicConfig.CLEANUP_POLICY_CONFIG,
                              TopicConfig.CLEANUP_POLICY_COMPACT))))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + topic, e);
    }
  }

  /** Partitions of each test's instances topic. */
  static final int INSTANCE_PARTITIONS = 2;

  /** Settings every test service shares; {@code extra} wins. */
  Map<String, String> config(Map<String, String> extra) {
    Map<String, String> c = new HashMap<>();
    c.put("db.url", dbUrl);
    c.put("db.user", stack.dbUser());
    c.put("db.password", stack.dbPassword());
    c.put("db.pool-size", "4");
    c.put("kafka.bootstrap", stack.kafkaBootstrap());
    c.put("zk.connect", stack.zkConnect());
    c.put("admin.port", "0");
    c.put("instance.id", "retry-test-" + UUID.randomUUID());
    c.put("retry.instances-topic", instancesTopic);
    c.put("retry.config-topic", configTopic);
    c.put("kafka.instances-partitions", Integer.toString(INSTANCE_PARTITIONS));
    // Tests drive passes with scanOnce(); the leader's own loop must not run between them.
    c.put("retry.scan-interval", "1h");
    c.put("retry.rate.per-task-per-second", "1000");
    c.putAll(extra);
    return c;
  }

  /**
   * Starts a retry service; the first of a test waits until it leads, since only a leader's passes
   * write ({@link RetryService#scanOnce()} on a standby does nothing).
   */
  RetryService start(Map<String, String> extra, Clock clock, long seed) {
    boolean first = services.isEmpty();
    RetryService s =
        RetryService.start(
            Config.of(config(extra)),
            clock,
            RandomGeneratorFactory.of("L64X128MixRandom").create(seed));
    open.add(s);
    services.add(s);
    if (first) {
      await("the first retry service leads").atMost(Duration.ofSeconds(30)).until(s::isLeader);
    }
    return s;
  }

  RetryService start(Map<String, String> extra, Clock clock) {
    return start(extra, clock, 42);
  }

  /** What {@code service}'s admin port answers on {@code /metrics}. */
  String scrape(RetryService service) throws Exception {
    return java.net.http.HttpClient.newHttpClient()
        .send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + service.adminPort() + "/metrics"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /**
   * Starts a retry service configured through environment variables, as a deployment is: every key
   * of {@link #config} as its {@code CARILLON_*} variable, plus {@code variables} (e.g. a {@code
   * *_FILE} secret). Waits until it leads if it is the first.
   */
  RetryService startFromEnvironment(Map<String, String> variables, Clock clock) {
    boolean first = services.isEmpty();
    Map<String, String> env = new HashMap<>();
    config(Map.of()).forEach((k, v) -> env.put(Config.envName(k), v));
    env.putAll(variables);
    RetryService s =
        RetryService.start(
            Config.load(java.util.Optional.empty(), env),
            clock,
            RandomGeneratorFactory.of("L64X128MixRandom").create(42));
    open.add(s);
    services.add(s);
    if (first) {
      await("the first retry service leads").atMost(Duration.ofSeconds(30)).until(s::isLeader);
    }
    return s;
  }

  TaskDefinition define(TaskDefinition.Builder b) {
    TaskDefinition d = b.build();
    tasks.applyAll(List.of(d));
    return d;
  }

  Instance newInstance(String taskId, String day, Duration timeout) {
    return windows.create(List.of(Tasks.pending(taskId, day, timeout)), "test").get(0);
  }

  /** A worker claims the instance; fails the test if it is not PENDING. */
  Instance claim(long id, String worker) {
    List<Instance> won = leases.claim(List.of(id), worker);
    if (won.size() != 1) {
      throw new AssertionError(
          "worker " + worker + " could not claim instance " + id + ": " + operator.find(id));
    }
    return won.get(0);
  }

  boolean fail(Instance claimed, String reason, boolean nonRetryable) {
    return leases.complete(
        new Lease(claimed.id(), claimed.attempt()),
        Outcome.failure(reason, nonRetryable),
        claimed.workerId());
  }

  boolean succeed(Instance claimed) {
    return leases.complete(
        new Lease(claimed.id(), claimed.attempt()),
        Outcome.success("ok", false, null),
        claimed.workerId());
  }

  InstanceStatus status(long id) {
    return operator.find(id).orElseThrow().status();
  }

  Instance find(long id) {
    return operator.find(id).orElseThrow();
  }

  /** Transitions of one instance into {@code to}. */
  List<InstanceEvent> transitionsTo(long id, InstanceStatus to) {
    return operator.events(id).stream()
        .filter(e -> e.kind() == InstanceEvent.Kind.TRANSITION && e.to() == to)
        .toList();
  }

  /** Number of event rows in the live table (for housekeeping tests). */
  int liveEvents(long id) {
    return db.dsl().fetchCount(INSTANCE_EVENT, INSTANCE_EVENT.INSTANCE_ID.eq(id));
  }

  /**
   * Publishes one record to the config topic; {@code value} null is a tombstone. Returns its
   * offset.
   */
  long publishConfig(String key, String value) throws Exception {
    return publishConfig(key, value, null);
  }

  /**
   * Publishes one record with {@code signature} in the {@link ConfigSigner#HEADER} header (none
   * when null). Returns its offset.
   */
  long publishConfig(String key, String value, String signature) throws Exception {
    ProducerRecord<String, byte[]> record =
        new ProducerRecord<>(
            configTopic, key, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    if (signature != null) {
      record.headers().add(ConfigSigner.HEADER, signature.getBytes(StandardCharsets.UTF_8));
    }
    try (KafkaProducer<String, byte[]> p =
        new KafkaProducer<>(KafkaSettings.of(stack.kafkaBootstrap()).producerProps())) {
      return p.send(record).get().offset();
    }
  }

  /** Starts a background reader of the instances topic. */
  TopicReader readInstances() {
    TopicReader r = new TopicReader(stack.kafkaBootstrap(), instancesTopic);
    open.add(r);
    return r;
  }

  @Override
  public void close() {
    for (int i = open.size() - 1; i >= 0; i--) {
      try {
        open.get(i).close();
      } catch (Exception e) {
        // keep closing the rest
      }
    }
    db.close();
  }

  /** Collects every message of a topic from the beginning, on its own thread. */
  static final class TopicReader implements AutoCloseable {
    final List<InstanceMessage> messages = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread thread;

    TopicReader(String bootstrap, String topic) {
      Map<String, Object> props = new HashMap<>();
      props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      props.put(
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      thread =
          new Thread(
              () -> {
                try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(props)) {
                  List<TopicPartition> parts = List.of();
                  while (!closed.get() && parts.isEmpty()) {
                    parts =
                        c.partitionsFor(topic, Duration.ofSeconds(5)).stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .toList();
                  }
                  c.assign(parts);
                  c.seekToBeginning(parts);
                  while (!closed.get()) {
                    c.poll(Duration.ofMillis(100))
                        .forEach(r -> messages.add(InstanceMessageCodec.decode(r.value())));
                  }
                }
              },
              "test-topic-reader");
      thread.setDaemon(true);
      thread.start();
    }

    long count(long instanceId) {
      return messages.stream().filter(m -> m.instanceId() == instanceId).count();
    }

    @Override
    public void close() throws InterruptedException {
      closed.set(true);
      thread.join(10_000);
    }
  }
}
