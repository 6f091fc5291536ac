package dev.carillon.testkit;

import static org.awaitility.Awaitility.await;

import dev.carillon.api.AgentTask;
import dev.carillon.api.Stability;
import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.RetryStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import dev.carillon.worker.WorkerService;
import dev.carillon.worker.WorkerSettings;
import dev.carillon.worker.plugin.PluginRegistry;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Runs agent plugins for real: in Carillon's own worker, against the PostgreSQL and Kafka of {@code
 * devstack}, so that a plugin's test sees what production would record when the agent succeeds,
 * fails retryably, refuses permanently or overruns its timeout.
 *
 * <pre>{@code
 * try (AgentHarness harness = AgentHarness.start(new ReportAgent())) {
 *   RunOutcome outcome =
 *       harness.run(TestRun.of("report").withParams("{\"sections\":[\"orders\"]}"));
 *   assertThat(outcome.succeeded()).as(outcome.toString()).isTrue();
 *   assertThat(outcome.summary()).contains("1 sections for " + outcome.windowKey() + " published");
 * }
 * }</pre>
 *
 * <p><b>What runs.</b> {@link #start} gives the harness a database of its own (migrated), a topic
 * and a consumer group of its own on the JVM-wide {@link DevStack#shared() shared stack}, and
 * starts one worker with exactly the given agents (not the class path's plugins) and one run slot.
 * Each {@link #run} applies a task with the run's handler, params and timeout, inserts one PENDING
 * instance as an operator would (origin MANUAL), publishes its id, and waits until the worker has
 * recorded its end. The trigger and the retry service do not run: a plugin's contract is with the
 * worker, and what the retry service does with a failure depends on the task's retry policy, not on
 * the plugin ({@link RunOutcome#failedRetryably()} says whether it may retry at all).
 *
 * <p><b>Resumable agents.</b> {@link #runAndKillWorker} runs an instance in a worker process of its
 * own and kills that process with SIGKILL once a condition of the test holds (the agent posted,
 * checkpointed, reached a step); {@link #retry} then does what the retry service does (the dead
 * worker's lease expires, the instance times out and is retried) and runs the next attempt in the
 * harness's worker. Every {@link RunOutcome} carries the instance's {@linkplain
 * RunOutcome#checkpoints() checkpoints} and {@linkplain RunOutcome#effects() effects} per attempt.
 *
 * <pre>{@code
 * RunOutcome killed = harness.runAndKillWorker(run, () -> sink.posts() == 1);
 * RunOutcome resumed = harness.retry(killed);
 * assertThat(resumed.succeeded()).as(resumed.toString()).isTrue();
 * assertThat(sink.posts()).isEqualTo(1);
 * }</pre>
 *
 * <p><b>Time.</b> The worker uses the system clock: a run's deadline is real. Test a timeout with a
 * short {@link TestRun#withTimeout timeout} (at least one second) and an agent that blocks until it
 * is cancelled; test deadline arithmetic in unit tests with {@link TestAgentContext} and a settable
 * clock.
 *
 * <p><b>Threads.</b> One {@link #run} at a time; the class is not thread-safe. {@link #close()}
 * stops the worker (running agents are cancelled) and closes the database pool; the database and
 * topic stay on the stack, which is stopped when the JVM exits.
 */
@Stability.Evolving
public final class AgentHarness implements AutoCloseable {
  /** How long {@link #run} waits beyond the run's timeout for the worker to record the end. */
  public static final Duration END_GRACE = Duration.ofSeconds(30);

  private static final Duration POLL = Duration.ofMillis(50);
  private static final AtomicInteger HARNESSES = new AtomicInteger();

  private final Database db;
  private final WindowStore windows;
  private final OperatorStore instances;
  private final RetryStore retries;
  private final TaskStore tasks;
  private final Map<String, String> workerConfig;
  private final KafkaSettings kafka;
  private final String topic;
  private final String workerId;
  private final WorkerService worker;
  private final AtomicInteger runs = new AtomicInteger();

  private AgentHarness(DevStack stack, List<? extends AgentTask> agents) {
    int n = HARNESSES.incrementAndGet();
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String dbUrl = stack.createDatabase("testkit");
    this.db =
        Database.open(
            new DbSettings(dbUrl, stack.dbUser(), stack.dbPassword(), 2),
            DevStack.SESSION_TIME_ZONE_SQL);
    try {
      this.windows = new WindowStore(db.dsl());
      this.instances = new OperatorStore(db.dsl());
      this.retries = new RetryStore(db.dsl());
      this.tasks = new TaskStore(db.dsl());
      this.kafka = KafkaSettings.of(stack.kafkaBootstrap());
      this.topic = "testkit." + unique;
      this.workerId = "testkit-worker-" + n;
      createTopic(kafka, topic);
      Map<String, String> config = new HashMap<>();
      config.put("db.url", dbUrl);
      config.put("db.user", stack.dbUser());
      config.put("db.password", stack.dbPassword());
      config.put("db.pool-size", "4");
      config.put("kafka.bootstrap", stack.kafkaBootstrap());
      config.put("admin.port", "0");
      config.put("instance.id", workerId);
      config.put("worker.topic", topic);
      // The worker checks at start that its topic has the partitions it was told to expect.
      config.put("kafka.instances-partitions", "1");
      config.put("worker.group", "testkit-" + unique);
      config.put("worker.concurrency", "1");
      config.put("worker.drain-timeout", "0s");
      // Every run applies its task just before its instance; the worker must not read a stale one.
      config.put("worker.task-cache-ttl", "0s");
      this.workerConfig = Map.copyOf(config);
      this.worker =
          WorkerService.start(
              WorkerSettings.from(Config.of(config)),
              PluginRegistry.of(List.copyOf(agents)),
              Clock.systemUTC());
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  /**
   * Starts a harness with these agents on the shared devstack (started on first use, a few
   * seconds).
   *
   * @param agents the plugins the worker has; their types must differ
   * @return the harness; close it
   * @throws IllegalArgumentException if no agent is given
   */
  public static AgentHarness start(AgentTask... agents) {
    return start(DevStack.shared(), List.of(agents));
  }

  /**
   * Starts a harness with these agents on {@code stack}.
   *
   * @param stack the servers to use
   * @param agents the plugins the worker has; their types must differ
   * @return the harness; close it
   * @throws IllegalArgumentException if no agent is given
   */
  public static AgentHarness start(DevStack stack, List<? extends AgentTask> agents) {
    Objects.requireNonNull(stack, "stack");
    if (agents.isEmpty()) {
      throw new IllegalArgumentException("an AgentHarness needs at least one agent");
    }
    return new AgentHarness(stack, agents);
  }

  /**
   * Runs {@code handler} once with {@code paramsJson} and the default timeout.
   *
   * @param handler the agent's type
   * @param paramsJson the params, a JSON object as text
   * @return how the run ended
   * @see #run(TestRun)
   */
  public RunOutcome run(String handler, String paramsJson) {
    return run(TestRun.of(handler).withParams(paramsJson));
  }

  /**
   * Runs one instance through the worker and waits for its end (at most the run's timeout plus
   * {@link #END_GRACE}).
   *
   * @param run what to run
   * @return how the run ended
   * @throws dev.carillon.model.task.InvalidTaskException when the handler, params or timeout would
   *     be refused in a task definition, naming the field and value
   * @throws IllegalStateException when the task already has an instance for the run's window, or
   *     Kafka does not acknowledge the instance's id
   * @throws AssertionError when the worker records no end in time, naming the state it last saw
   */
  public RunOutcome run(TestRun run) {
    Instance instance = create(run);
    publish(instance, topic);
    return outcome(awaitEnd(instance, run.timeout().plus(END_GRACE)));
  }

  /**
   * Runs one instance in a worker process of its own (a child JVM with this JVM's class path, so
   * the handler must be registered in {@code META-INF/services}; the agents given to {@link #start}
   * are not used), waits until {@code killWhen} holds while the run is going, kills that process
   * with SIGKILL (kill -9: no drain, no release, the lease left to expire) and returns at once. The
   * instance stays RUNNING with the dead worker's lease; {@link #retry} runs the next attempt. The
   * process's output goes to {@code carillon-testkit-worker-<n>.log} in {@code java.io.tmpdir}.
   *
   * @param run what to run; its timeout is both the run's deadline and its lease, so choose one
   *     long enough for the kill to come first and short enough to wait for in {@link #retry}
   * @param killWhen the moment to kill, e.g. the agent's first post seen by the test's sink; asked
   *     every few milliseconds from the test's thread
   * @return the run as the kill left it: {@link RunOutcome.Status#KILLED}, with the checkpoints and
   *     effects recorded so far
   * @throws AssertionError when the run ends, or {@code killWhen} does not hold, within the run's
   *     timeout
   */
  public RunOutcome runAndKillWorker(TestRun run, BooleanSupplier killWhen) {
    Instance instance = create(run);
    long n = instance.id();
    String processTopic = topic + ".process-" + n;
    String processWorker = workerId + "-process-" + n;
    createTopic(kafka, processTopic);
    Map<String, String> config = new HashMap<>(workerConfig);
    config.put("instance.id", processWorker);
    config.put("worker.topic", processTopic);
    config.put("worker.group", workerConfig.get("worker.group") + "-process-" + n);
    Path log =
        Path.of(System.getProperty("java.io.tmpdir"), "carillon-testkit-" + processWorker + ".log");
    try (WorkerProcess process = WorkerProcess.start(config, log)) {
      publish(instance, processTopic);
      AtomicReference<Instance> seen = new AtomicReference<>(instance);
      try {
        await("the run in worker process " + process.pid() + " to reach the kill condition")
            .atMost(run.timeout())
            .pollInterval(Duration.ofMillis(20))
            .until(
                () -> {
                  Instance now = instances.find(instance.id()).orElseThrow();
                  seen.set(now);
                  if (now.status() != InstanceStatus.PENDING
                      && now.status() != InstanceStatus.RUNNING) {
                    throw new AssertionError(
                        "the run ended as "
                            + now.status()
                            + " before the kill condition held (see "
                            + log
                            + ")");
                  }
                  return now.status() == InstanceStatus.RUNNING && killWhen.getAsBoolean();
                });
      } catch (ConditionTimeoutException e) {
        throw new AssertionError(
            "the kill condition did not hold within "
                + run.timeout()
                + "; the instance was last "
                + seen.get().status()
                + " (see "
                + log
                + ")",
            e);
      }
      process.kill();
    }
    Instance after = instances.find(instance.id()).orElseThrow();
    return outcome(after, RunOutcome.Status.KILLED);
  }

  /**
   * Runs the next attempt of {@code previous}'s instance in the harness's worker, as the retry
   * service would once the task's policy grants a retry: a FAILED or TIMEOUT instance is retried at
   * once; a KILLED one first waits for the dead worker's lease to expire (at most the run's
   * timeout) and times out. The new attempt resumes from what the earlier ones recorded.
   *
   * @param previous how the earlier attempt ended
   * @return how the next attempt ended
   * @throws IllegalStateException when the instance succeeded or is not waiting for a retry
   * @throws AssertionError when the lease does not expire, or the worker records no end, in time
   */
  public RunOutcome retry(RunOutcome previous) {
    Instance now =
        instances
            .findByWindow(previous.taskId(), previous.windowKey())
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "no instance of " + previous.taskId() + "/" + previous.windowKey()));
    // The retry service's writes are fenced by its leader's epoch; on its own database the harness
    // plays a retry leader that has just taken over.
    Fence retryLeader = new EpochStore(db.dsl()).begin("retry", "testkit-retry");
    if (now.status() == InstanceStatus.RUNNING) {
      await("the dead worker's lease on " + now.idempotencyKey() + " to expire")
          .atMost(now.timeout().plus(END_GRACE))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  retries.expireLeases(100, "testkit-retry", retryLeader).stream()
                      .anyMatch(i -> i.id() == now.id()));
    }
    Instance failed = instances.find(now.id()).orElseThrow();
    if (failed.status() != InstanceStatus.FAILED && failed.status() != InstanceStatus.TIMEOUT) {
      throw new IllegalStateException(
          now.idempotencyKey() + " is " + failed.status() + ", not waiting for a retry");
    }
    if (!retries.scheduleRetry(
            failed, Instant.now(), null, "testkit-retry", "testkit retry", retryLeader)
        || retries.promoteDueRetries(100, "testkit-retry", retryLeader).stream()
            .noneMatch(i -> i.id() == now.id())) {
      throw new IllegalStateException(
          now.idempotencyKey() + " changed while it was retried: " + instances.find(now.id()));
    }
    Instance pending = instances.find(now.id()).orElseThrow();
    publish(pending, topic);
    return outcome(awaitEnd(pending, pending.timeout().plus(END_GRACE)));
  }

  private Instance create(TestRun run) {
    int n = runs.incrementAndGet();
    String taskId = run.taskId().orElse("testkit-" + n);
    tasks.applyAll(
        List.of(
            TaskDefinition.builder(taskId)
                .handler(run.handler())
                // The trigger does not run here; a valid schedule is all a definition needs.
                .cron("0 0 0 * * ?", ZoneOffset.UTC, WindowKind.DAILY)
                .timeout(run.timeout())
                .paramsJson(run.paramsJson())
                .build()));
    Instant now = Instant.now();
    Instant day = LocalDate.ofInstant(now, ZoneOffset.UTC).atStartOfDay(ZoneOffset.UTC).toInstant();
    Window window =
        run.window()
            .map(w -> new Window(w.key(), w.start(), w.end()))
            .orElse(new Window(day.toString().substring(0, 10), day, day.plus(Duration.ofDays(1))));
    List<Instance> created =
        windows.create(
            List.of(NewInstance.pending(taskId, window, now, Origin.MANUAL, run.timeout(), 0)),
            "testkit");
    if (created.isEmpty()) {
      throw new IllegalStateException(
          "task '"
              + taskId
              + "' already has an instance for window '"
              + window.key()
              + "'; give the run another window or task");
    }
    return created.get(0);
  }

  /**
   * The id of the harness's worker, as it appears in failure reasons and events.
   *
   * @return the worker id
   */
  public String workerId() {
    return workerId;
  }

  /** Stops the worker (cancelling a run in progress) and closes the database pool. Idempotent. */
  @Override
  public void close() {
    try {
      worker.close();
    } finally {
      db.close();
    }
  }

  private void publish(Instance instance, String topic) {
    Instant now = Instant.now();
    try (InstancePublisher publisher =
        new InstancePublisher(kafka, topic, InstancePublisher.DEFAULT_ACK_TIMEOUT)) {
      List<Long> acked =
          publisher.publish(
              List.of(
                  InstanceMessage.of(instance.id(), instance.taskId(), instance.windowKey(), now)));
      if (acked.isEmpty()) {
        throw new IllegalStateException(
            "Kafka did not acknowledge instance " + instance.idempotencyKey() + " on " + topic);
      }
    }
  }

  private Instance awaitEnd(Instance created, Duration wait) {
    AtomicReference<Instance> seen = new AtomicReference<>(created);
    try {
      await("the worker to record the end of " + created.idempotencyKey())
          .atMost(wait)
          .pollInterval(POLL)
          .until(
              () -> {
                Instance now = instances.find(created.id()).orElseThrow();
                seen.set(now);
                return now.status() != InstanceStatus.PENDING
                    && now.status() != InstanceStatus.RUNNING;
              });
      return seen.get();
    } catch (ConditionTimeoutException e) {
      Instance last = seen.get();
      throw new AssertionError(
          "the worker recorded no end for "
              + created.idempotencyKey()
              + " within "
              + wait
              + "; last seen "
              + last.status()
              + " (attempt "
              + last.attempt()
              + ", worker "
              + last.workerId()
              + ")",
          e);
    }
  }

  private RunOutcome outcome(Instance end) {
    return outcome(end, statusOf(end));
  }

  private static RunOutcome.Status statusOf(Instance end) {
    return switch (end.status()) {
      case SUCCESS -> RunOutcome.Status.SUCCESS;
      case FAILED -> RunOutcome.Status.FAILED;
      case TIMEOUT -> RunOutcome.Status.TIMEOUT;
      default ->
          throw new IllegalStateException(
              "the worker left "
                  + end.idempotencyKey()
                  + " in "
                  + end.status()
                  + ", which a worker never writes as a run's end");
    };
  }

  private RunOutcome outcome(Instance end, RunOutcome.Status status) {
    List<RunEvent> events =
        instances.events(end.id()).stream()
            .filter(e -> e.to() != null)
            .map(AgentHarness::event)
            .toList();
    return new RunOutcome(
        end.taskId(),
        end.windowKey(),
        status,
        end.attempt(),
        Optional.ofNullable(end.resultSummary()),
        end.resultTruncated(),
        Optional.ofNullable(end.resultUri()).map(URI::create),
        Optional.ofNullable(end.failReason()),
        end.nonRetryable(),
        events,
        instances.checkpoints(end.id()).stream()
            .map(
                c ->
                    new RunCheckpoint(
                        c.attempt(), c.stateJson(), c.saves(), c.workerId(), c.savedAt()))
            .toList(),
        instances.effects(end.id()).stream()
            .map(
                e ->
                    new RunEffect(
                        e.key(),
                        e.attempt(),
                        e.starts(),
                        e.workerId(),
                        e.done(),
                        Optional.ofNullable(e.result())))
            .toList());
  }

  private static RunEvent event(InstanceEvent e) {
    return new RunEvent(
        Optional.ofNullable(e.from()).map(InstanceStatus::name),
        e.to().name(),
        Optional.ofNullable(e.attempt()),
        e.actor(),
        Optional.ofNullable(e.reason()),
        e.at());
  }

  private static void createTopic(KafkaSettings kafka, String topic) {
    try (Admin admin = Admin.create(kafka.adminProps())) {
      admin
          .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("cannot create the harness's topic " + topic, e);
    }
  }
}
