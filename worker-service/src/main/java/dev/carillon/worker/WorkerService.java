package dev.carillon.worker;

import dev.carillon.admin.AdminServer;
import dev.carillon.admin.DependencyProbe;
import dev.carillon.admin.HealthReport;
import dev.carillon.config.Config;
import dev.carillon.config.SelfStopping;
import dev.carillon.kafka.CachedQueueRouter;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.kafka.Topics;
import dev.carillon.metrics.ServiceMeters;
import dev.carillon.metrics.TaskLabel;
import dev.carillon.model.agent.BuiltInHandler;
import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.worker.Serves;
import dev.carillon.store.Database;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.PresenceStore;
import dev.carillon.store.ResumeStore;
import dev.carillon.store.RunEvidenceStore;
import dev.carillon.store.TaskStore;
import dev.carillon.trace.Tracing;
import dev.carillon.worker.consume.InstanceConsumer;
import dev.carillon.worker.exec.ExecAgents;
import dev.carillon.worker.exec.ExecLimits;
import dev.carillon.worker.http.HttpAgents;
import dev.carillon.worker.lease.Heartbeater;
import dev.carillon.worker.lease.LeaseFence;
import dev.carillon.worker.plugin.PluginRegistry;
import dev.carillon.worker.presence.PresenceBeacon;
import dev.carillon.worker.run.AgentKind;
import dev.carillon.worker.run.FireTimeStarts;
import dev.carillon.worker.run.GiveUp;
import dev.carillon.worker.run.RunPool;
import dev.carillon.worker.run.RunSpecCache;
import dev.carillon.worker.run.RunTelemetry;
import dev.carillon.worker.run.TimeoutAdvisor;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker process: composition root of the consumer, the run pool, the heartbeat, the plugins,
 * the presence row, the admin endpoints and the database. It serves the queues of {@code
 * worker.queues} with the handlers of its plugins ({@link Serves}). {@link #start} returns once
 * everything runs; {@link #close()} shuts down gracefully:
 *
 * <ol>
 *   <li>stop polling (the consumer leaves the group, so other workers take over its partitions);
 *   <li>release the claimed instances still waiting for a slot ({@code worker.prefetch}) to PENDING
 *       and publish their ids again;
 *   <li>let running instances finish for up to {@code worker.drain-timeout}, still heartbeating;
 *   <li>cancel the rest and release them to PENDING (recorded, no retry consumed) and publish their
 *       ids again, so another worker starts them at once.
 * </ol>
 *
 * <p><b>Giving up.</b> When {@code worker.max-abandoned-runs} runs were asked to stop and did not
 * end (a plugin that ignores interrupts; runs blocked while this worker's PostgreSQL does not
 * answer are counted only if they still have not ended once it answers again, see {@link GiveUp}),
 * or another process joined the group with this worker's id, the worker reports not ready (health
 * and presence), stops polling and leaves the group, gives back the instances still waiting for a
 * slot, and asks its process to exit ({@link #exitRequested}, code {@link #EXIT_GAVE_UP} or {@link
 * #EXIT_DUPLICATE_ID}): only a new process gets its threads back, and the orchestrator starts one.
 *
 * <p><b>Health.</b> {@code /health/live} says whether the worker's own loops go round (the
 * consumer's poll loop and the lease heartbeat, each within {@link #LOOP_STALL}); a database that
 * cannot be reached does not make a worker dead, a loop stuck for good does. {@code /health/ready}
 * adds that the worker takes work: not stopping, not given up, and its statements reach the
 * database (after {@link InstanceConsumer#LEAVE_AFTER} of failures it has left the group).
 */
public final class WorkerService implements AutoCloseable, SelfStopping {
  /** Exit code of a worker that gave up because runs would not stop. */
  public static final int EXIT_GAVE_UP = 3;

  /** Exit code of a worker fenced out of the group by another process with its id. */
  public static final int EXIT_DUPLICATE_ID = 2;

  /**
   * The consumer's session timeout with the classic protocol unless {@code
   * kafka.properties.session.timeout.ms} says otherwise: how long a dead worker that is not
   * restarted under its id keeps its partitions.
   */
  public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

  /** A loop that has not gone round for this long makes the worker not live. */
  public static final Duration LOOP_STALL = Duration.ofSeconds(60);

  /** The longest one poll blocks; bounds how late a freed slot or a stop is noticed. */
  public static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

  /** The pause before re-reading a batch whose claim failed. */
  public static final Duration CLAIM_ERROR_BACKOFF = Duration.ofSeconds(1);

  /** How long close() waits for the threads of stopped runs before closing the database. */
  static final Duration STOPPED_RUN_GRACE = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(WorkerService.class);

  private final WorkerSettings settings;
  private final PluginRegistry plugins;
  private final Database db;
  private final LeaseStore store;
  private final ServiceMeters meters;
  private final PrometheusMeterRegistry registry;
  private final Tracing tracing;
  private final TimeoutAdvisor advisor;
  private final WorkerMetrics metrics;
  private final RunPool pool;
  private final Heartbeater heartbeater;
  private final Optional<InstancePublisher> publisher;
  private final InstanceConsumer consumer;
  private final Thread consumerThread;
  private final AdminServer admin;
  private final DependencyProbe postgres;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean gaveUp = new AtomicBoolean();
  private final CompletableFuture<Integer> exitRequested = new CompletableFuture<>();
  private final Clock clock;
  private final ExecAgents execAgents;
  private final Serves serves;
  private final LoopProgress consumerProgress = new LoopProgress("consumer", System::nanoTime);
  private final LoopProgress heartbeatProgress = new LoopProgress("heartbeat", System::nanoTime);
  private final DatabaseWatch database = new DatabaseWatch(System::nanoTime);
  private final PresenceBeacon beacon;
  private volatile String gaveUpReason;

  private WorkerService(
      WorkerSettings settings,
      PluginRegistry plugins,
      Clock clock,
      Tracing tracing,
      TaskLabel tasks,
      ServiceMeters meters) {
    this.settings = settings;
    this.plugins = plugins;
    this.clock = clock;
    this.tracing = tracing;
    this.meters = meters;
    requireTopics(settings);
    // Every worker statement finds its rows by primary key; see PRIMARY_KEY_PLANS for why.
    // The handlers this worker claims: its plugins' types and the built-in handlers it offers.
    java.util.Set<String> handlers = new java.util.TreeSet<>(plugins.types());
    settings.builtinHandlers().forEach(b -> handlers.add(b.handler()));
    this.serves = new Serves(java.util.Set.copyOf(settings.queues()), handlers);
    this.db = Database.forService(settings.db(), Database.PRIMARY_KEY_PLANS);
    this.postgres =
        new DependencyProbe(
            "postgres",
            () -> db.ping(DependencyProbe.DEFAULT_TIMEOUT),
            DependencyProbe.DEFAULT_EVERY,
            DependencyProbe.DEFAULT_TIMEOUT);
    this.store = new LeaseStore(db.dsl());
    this.registry = meters.registry();
    db.bindMetrics(registry);
    RunPool[] poolRef = new RunPool[1];
    this.metrics =
        new WorkerMetrics(
            registry,
            settings.workerId(),
            () -> poolRef[0] == null ? 0 : poolRef[0].running(),
            () -> poolRef[0] == null ? 0 : poolRef[0].freeSlots(),
            () -> poolRef[0] == null ? 0 : poolRef[0].abandoned(),
            tasks);
    this.advisor =
        new TimeoutAdvisor(
            new RunEvidenceStore(db.dsl())::advice,
            RunEvidenceStore.DEFAULT_WINDOW,
            metrics,
            "carillon-timeout-advice-" + settings.workerId());
    this.execAgents =
        new ExecAgents(
            System.getenv(),
            ExecAgents.findSetsid(),
            ExecLimits.DEFAULTS,
            settings.maxSummaryBytes(),
            metrics.execIgnoredLines,
            metrics.execAbandonedTrees,
            settings.workerId());
    this.pool =
        new RunPool(
            store,
            new ResumeStore(db.dsl()),
            new RunSpecCache(new TaskStore(db.dsl()), settings.taskCacheTtl(), System::nanoTime),
            plugins,
            metrics,
            settings.workerId(),
            settings.concurrency(),
            settings.prefetch(),
            settings.maxSummaryBytes(),
            clock,
            builtIns(clock),
            new LeaseFence(settings.fenceMargin(), settings.stopGrace()),
            settings.heartbeatInterval(),
            new GiveUp(
                settings.maxAbandonedRuns(),
                reason -> giveUp(reason, EXIT_GAVE_UP),
                () ->
                    postgres.isUp()
                        ? Optional.empty()
                        : Optional.of("PostgreSQL does not answer this worker")),
            new RunTelemetry(tracing, Optional.of(advisor)),
            settings.virtualThreads(),
            settings.db().poolSize(),
            settings.claimAhead().isZero()
                ? FireTimeStarts.atOnce()
                : new FireTimeStarts(settings.claimAhead(), store::databaseTime, System::nanoTime));
    poolRef[0] = pool;
    this.heartbeater =
        new Heartbeater(
            store,
            pool.leases(),
            metrics,
            settings.workerId(),
            settings.heartbeatInterval(),
            heartbeatProgress,
            database);
    TaskStore taskStore = new TaskStore(db.dsl());
    // Without republishing the worker never writes to Kafka, so its principal needs no WRITE.
    this.publisher =
        settings.republishReleased()
            ? Optional.of(
                new InstancePublisher(
                    settings.kafka(),
                    settings.topic(),
                    InstancePublisher.DEFAULT_ACK_TIMEOUT,
                    new CachedQueueRouter(
                        taskStore::queues, CachedQueueRouter.DEFAULT_TTL, System::nanoTime),
                    tracing,
                    "republish"))
            : Optional.empty();
    publisher.ifPresent(p -> p.bindMetrics(meters));
    // Checked at start (requireTopics): a topic that did not exist yet would only be seen at the
    // consumer's next metadata refresh (five minutes).
    List<String> topics =
        settings.queues().stream().map(q -> Topics.instances(settings.topic(), q)).toList();
    Map<String, Object> props = settings.kafka().consumerProps(settings.group());
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "carillon-worker-" + settings.workerId());
    // Static membership: a worker restarted under its id rejoins as the same member and gets its
    // partitions back at once, instead of after the dead process's session timeout.
    if (settings.staticMembership()) {
      props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, settings.workerId());
    }
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, settings.groupProtocol().kafkaName());
    if (settings.groupProtocol() == WorkerSettings.GroupProtocol.CLASSIC) {
      // A killed worker that is not restarted under its id keeps its partitions, and their
      // records, until its session times out: 10 s instead of Kafka's 45 s. A deployment may set
      // kafka.properties.session.timeout.ms.
      props.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) SESSION_TIMEOUT.toMillis());
    } else {
      // The consumer protocol takes its timing from the broker and refuses these client keys.
      for (String key :
          List.of(
              ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
              ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
              ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG)) {
        if (props.remove(key) != null) {
          log.warn(
              "kafka.properties.{} is ignored with worker.group-protocol=consumer (the broker's"
                  + " group configuration decides it)",
              key);
        }
      }
    }
    // A batch never holds more than the free capacity's worth of useful records; a cap near it
    // keeps the re-reads after a full batch cheap.
    props.put(
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
        Math.max(settings.concurrency() * 2, settings.concurrency() + settings.prefetch()));
    this.consumer =
        new InstanceConsumer(
            () -> {
              // A new consumer at start and on each rejoin, each with its metrics exported.
              KafkaConsumer<String, byte[]> kafkaConsumer = new KafkaConsumer<>(props);
              meters.bindKafka(kafkaConsumer);
              return kafkaConsumer;
            },
            database,
            topics,
            store,
            pool,
            metrics,
            settings.workerId(),
            serves,
            POLL_TIMEOUT,
            CLAIM_ERROR_BACKOFF,
            consumerProgress,
            reason -> giveUp(reason, EXIT_DUPLICATE_ID),
            tracing,
            clock,
            settings.claimAhead());
    this.consumerThread = new Thread(consumer, "carillon-consumer-" + settings.workerId());
    this.admin = AdminServer.start("worker", settings.admin(), registry, this::health);
    this.beacon =
        new PresenceBeacon(
            new PresenceStore(db.dsl()),
            settings.workerId(),
            serves,
            this::ready,
            pool::freeSlots,
            database);
    consumerThread.start();
    beacon.start();
    log.info(
        "Worker {} started: {} slot(s), group {} ({} protocol, {} member), queues {} (topics {}),"
            + " handlers {} (built-in: {})",
        settings.workerId(),
        settings.concurrency(),
        settings.group(),
        settings.groupProtocol().kafkaName(),
        settings.staticMembership() ? "static" : "dynamic",
        serves.sortedQueues(),
        topics,
        serves.sortedHandlers(),
        settings.builtinHandlers().stream().map(BuiltInHandler::handler).sorted().toList());
  }

  /** The built-in handlers this worker offers ({@code worker.builtin-handlers}), by kind. */
  private Map<BuiltInHandler, AgentKind> builtIns(Clock clock) {
    Map<BuiltInHandler, AgentKind> kinds = new EnumMap<>(BuiltInHandler.class);
    for (BuiltInHandler b : settings.builtinHandlers()) {
      kinds.put(
          b,
          switch (b) {
            case EXEC -> execAgents;
            case HTTP ->
                new HttpAgents(
                    settings.httpConnectTimeout(),
                    System.getenv(),
                    HttpAgents.DEFAULT_MAX_BODY_BYTES,
                    settings.maxSummaryBytes(),
                    clock);
          });
      if (plugins.find(b.handler()).isPresent()) {
        log.warn(
            "A plugin has the type '{}', which is a built-in handler; tasks naming it run the"
                + " built-in one, never the plugin",
            b.handler());
      }
    }
    return kinds;
  }

  /**
   * Starts a worker from configuration, with the plugins on the class path and in {@code
   * worker.plugin-dir}.
   *
   * @throws dev.carillon.config.ConfigException when a setting is missing or wrong
   * @throws dev.carillon.worker.plugin.PluginException when the plugins clash or cannot load
   */
  public static WorkerService start(Config config) {
    WorkerSettings settings = WorkerSettings.from(config);
    TaskLabel tasks = TaskLabel.from(config);
    Tracing tracing = Tracing.from(config, "worker", settings.workerId());
    log.info(
        "Effective configuration: {} tracing={} {}={}",
        settings.describe(),
        tracing.describe(),
        TaskLabel.KEY,
        tasks.limit());
    try {
      return start(
          settings,
          PluginRegistry.load(
              WorkerService.class.getClassLoader(),
              settings.pluginDir(),
              settings.pluginAllowlist()),
          Clock.systemUTC(),
          tracing,
          tasks);
    } catch (RuntimeException e) {
      tracing.close();
      throw e;
    }
  }

  /**
   * Starts a worker with the given plugins (embedding, tests). The worker closes {@code plugins}.
   */
  public static WorkerService start(WorkerSettings settings, PluginRegistry plugins, Clock clock) {
    return start(settings, plugins, clock, Tracing.off(), new TaskLabel(TaskLabel.DEFAULT_LIMIT));
  }

  /**
   * Starts a worker with the given plugins, tracing and task label cap (embedding, tests). The
   * worker closes {@code plugins} and {@code tracing}.
   */
  public static WorkerService start(
      WorkerSettings settings,
      PluginRegistry plugins,
      Clock clock,
      Tracing tracing,
      TaskLabel tasks) {
    ServiceMeters meters = ServiceMeters.create();
    try {
      return new WorkerService(settings, plugins, clock, tracing, tasks, meters);
    } catch (RuntimeException e) {
      plugins.close();
      meters.close();
      throw e;
    }
  }

  /** The worker's meters (Prometheus). */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The worker's counters. */
  public WorkerMetrics metrics() {
    return metrics;
  }

  /** The settings in effect. */
  public WorkerSettings settings() {
    return settings;
  }

  /** The port of the admin endpoints. */
  public int adminPort() {
    return admin.port();
  }

  /**
   * Checks the default queue's topic and the topic of each queue this worker serves: each must
   * exist with at least {@code kafka.instances-partitions} partitions. The worker creates none (the
   * create-topics step does, with {@code kafka.queues}); a missing one stops the start with a
   * message that names the topic and the step.
   */
  private static void requireTopics(WorkerSettings settings) {
    java.util.Set<String> topics = new java.util.LinkedHashSet<>();
    List<TopicAdmin.Need> needs = new java.util.ArrayList<>();
    needs.add(new TopicAdmin.Need(settings.topic(), settings.instancePartitions(), false));
    topics.add(settings.topic());
    for (String queue : settings.queues()) {
      TopicAdmin.Need need =
          TopicAdmin.Need.instances(settings.topic(), queue, settings.instancePartitions());
      if (topics.add(need.topic())) {
        needs.add(need);
      }
    }
    TopicAdmin.require(settings.kafka(), needs);
  }

  /** What this worker serves: its queues and its handlers. */
  public Serves serves() {
    return serves;
  }

  /**
   * Completes with the exit code when the worker gave up (see the class comment); {@link
   * dev.carillon.config.ServiceLauncher} then ends the process.
   */
  @Override
  public CompletionStage<Integer> exitRequested() {
    return exitRequested;
  }

  private boolean live() {
    if (closed.get() || gaveUp.get()) {
      // Stopping on purpose: the loops end, and the process exits by itself.
      return true;
    }
    return consumerThread.isAlive()
        && !consumerProgress.stalled(LOOP_STALL)
        && !heartbeatProgress.stalled(LOOP_STALL);
  }

  /**
   * Ready while live, not giving up, and PostgreSQL answers (a worker that cannot claim should get
   * no work).
   */
  private boolean ready(DependencyProbe.Status db) {
    return ready() && db.up();
  }

  /** Ready by the worker's own account: live, not giving up, its statements reach the database. */
  private boolean ready() {
    return !closed.get()
        && !gaveUp.get()
        && live()
        && database.failingFor().compareTo(InstanceConsumer.LEAVE_AFTER) < 0;
  }

  private HealthReport health() {
    DependencyProbe.Status db = postgres.status();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("workerId", settings.workerId());
    details.put("queues", List.copyOf(serves.sortedQueues()));
    details.put("running", pool.running());
    details.put("freeSlots", pool.freeSlots());
    details.put("abandonedRuns", pool.abandoned());
    details.put("consumerLoopMs", consumerProgress.sinceLast().toMillis());
    details.put("heartbeatLoopMs", heartbeatProgress.sinceLast().toMillis());
    details.put("databaseFailingMs", database.failingFor().toMillis());
    details.put("plugins", List.copyOf(plugins.types()));
    details.put("postgres", db.detail());
    if (gaveUpReason != null) {
      details.put("gaveUp", gaveUpReason);
    }
    return new HealthReport(live(), ready(db), details);
  }

  /**
   * Gives up (see the class comment), once: not ready at once, then on a thread of its own (the
   * caller may be the consumer or a timer) stops polling, leaves the group, gives back the
   * instances waiting for a slot, and requests the exit.
   */
  private void giveUp(String reason, int exitCode) {
    if (closed.get() || !gaveUp.compareAndSet(false, true)) {
      return;
    }
    gaveUpReason = reason;
    log.error(
        "Worker {} gives up: {}. It reports not ready, leaves the consumer group and exits with"
            + " code {} so that it is restarted",
        settings.workerId(),
        reason,
        exitCode);
    Thread t =
        new Thread(
            () -> {
              try {
                beacon.round();
                consumer.stop();
                if (Thread.currentThread() != consumerThread) {
                  consumerThread.join(Duration.ofSeconds(15).toMillis());
                }
                republish(
                    pool.releaseWaiting(
                        "worker "
                            + settings.workerId()
                            + " gave up before the instance started ("
                            + reason
                            + "); released without consuming a retry"));
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (RuntimeException e) {
                log.warn("Giving up did not finish cleanly: {}", e.toString());
              } finally {
                exitRequested.complete(exitCode);
              }
            },
            "carillon-give-up-" + settings.workerId());
    t.setDaemon(true);
    t.start();
  }

  /** Graceful shutdown (see the class comment). Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    log.info(
        "Worker {} stopping: no more polling; {} run(s) in progress get up to {} to finish",
        settings.workerId(),
        pool.running(),
        settings.drainTimeout());
    try {
      consumer.stop();
      consumerThread.join(Duration.ofSeconds(15).toMillis());
      republish(
          pool.releaseWaiting(
              "worker "
                  + settings.workerId()
                  + " shut down before the instance started; released without consuming a"
                  + " retry"));
      if (!pool.awaitQuiet(settings.drainTimeout())) {
        List<ClaimedInstance> released =
            pool.releaseAll(
                "worker "
                    + settings.workerId()
                    + " shut down before the run finished (drain timeout "
                    + settings.drainTimeout()
                    + "); released without consuming a retry");
        republish(released);
      }
      if (!pool.awaitThreads(STOPPED_RUN_GRACE)) {
        log.warn(
            "{} run thread(s) did not stop within {}; they ignore interrupts and are abandoned",
            pool.running(),
            STOPPED_RUN_GRACE);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("Interrupted while stopping; releasing what is left");
      republish(pool.releaseAll("worker " + settings.workerId() + " interrupted while stopping"));
    } finally {
      closeQuietly("presence", beacon);
      closeQuietly("heartbeat", heartbeater);
      closeQuietly("timeout advisor", advisor);
      closeQuietly("run pool", pool);
      publisher.ifPresent(p -> closeQuietly("publisher", p));
      closeQuietly("admin server", admin);
      closeQuietly("plugins", plugins);
      closeQuietly("exec agents", execAgents);
      closeQuietly("postgres probe", postgres);
      closeQuietly("database", db);
      closeQuietly("tracing", tracing);
      meters.close();
      log.info("Worker {} stopped", settings.workerId());
    }
  }

  private void republish(List<ClaimedInstance> released) {
    if (released.isEmpty()) {
      return;
    }
    if (publisher.isEmpty()) {
      log.info(
          "Released {} instance(s) {}; worker.republish-released is off, so the retry service's"
              + " stranded scan publishes them again",
          released.size(),
          released.stream().map(ClaimedInstance::id).toList());
      return;
    }
    List<InstanceMessage> messages =
        released.stream()
            .map(i -> InstanceMessage.of(i.id(), i.taskId(), i.windowKey(), clock.instant()))
            .toList();
    try {
      List<Long> acked = publisher.get().publish(messages);
      store.markDispatched(acked);
      log.info(
          "Republished {} of {} released instance(s) {}; the rest wait for the stranded-PENDING scan",
          acked.size(),
          released.size(),
          acked);
    } catch (RuntimeException e) {
      log.warn("Could not republish released instances; the retry service will: {}", e.toString());
    }
  }

  private static void closeQuietly(String what, AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      log.warn("Closing the {} failed: {}", what, e.toString());
    }
  }
}
