package dev.carillon.worker;

import dev.carillon.admin.AdminServer;
import dev.carillon.admin.HealthReport;
import dev.carillon.config.Config;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.model.agent.BuiltInHandler;
import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.store.Database;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.ResumeStore;
import dev.carillon.store.TaskStore;
import dev.carillon.worker.consume.InstanceConsumer;
import dev.carillon.worker.exec.ExecAgents;
import dev.carillon.worker.exec.ExecLimits;
import dev.carillon.worker.http.HttpAgents;
import dev.carillon.worker.lease.Heartbeater;
import dev.carillon.worker.plugin.PluginRegistry;
import dev.carillon.worker.run.AgentKind;
import dev.carillon.worker.run.RunPool;
import dev.carillon.worker.run.RunSpecCache;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker process: composition root of the consumer, the run pool, the heartbeat, the plugins,
 * the admin endpoints and the database. {@link #start} returns once everything runs; {@link
 * #close()} shuts down gracefully:
 *
 * <ol>
 *   <li>stop polling (the consumer leaves the group, so other workers take over its partitions);
 *   <li>release the claimed instances still waiting for a slot ({@code worker.prefetch}) to PENDING
 *       and publish their ids again;
 *   <li>let running instances finish for up to {@code worker.drain-timeout}, still heartbeating;
 *   <li>cancel the rest and release them to PENDING (recorded, no retry consumed) and publish their
 *       ids again, so another worker starts them at once.
 * </ol>
 */
public final class WorkerService implements AutoCloseable {
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
  private final PrometheusMeterRegistry registry;
  private final WorkerMetrics metrics;
  private final RunPool pool;
  private final Heartbeater heartbeater;
  private final InstancePublisher publisher;
  private final InstanceConsumer consumer;
  private final Thread consumerThread;
  private final AdminServer admin;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Clock clock;
  private final ExecAgents execAgents;

  private WorkerService(WorkerSettings settings, PluginRegistry plugins, Clock clock) {
    this.settings = settings;
    this.plugins = plugins;
    this.clock = clock;
    // Every worker statement finds its rows by primary key; see PRIMARY_KEY_PLANS for why.
    this.db = Database.open(settings.db(), Database.PRIMARY_KEY_PLANS);
    this.store = new LeaseStore(db.dsl());
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RunPool[] poolRef = new RunPool[1];
    this.metrics =
        new WorkerMetrics(
            registry,
            settings.workerId(),
            () -> poolRef[0] == null ? 0 : poolRef[0].running(),
            () -> poolRef[0] == null ? 0 : poolRef[0].freeSlots());
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
            settings.virtualThreads());
    poolRef[0] = pool;
    this.heartbeater =
        new Heartbeater(
            store, pool.leases(), metrics, settings.workerId(), settings.heartbeatInterval());
    this.publisher =
        new InstancePublisher(
            settings.kafka(), settings.topic(), InstancePublisher.DEFAULT_ACK_TIMEOUT);
    Map<String, Object> props = settings.kafka().consumerProps(settings.group());
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "carillon-worker-" + settings.workerId());
    // A batch never holds more than the free capacity's worth of useful records; a cap near it
    // keeps the re-reads after a full batch cheap.
    props.put(
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
        Math.max(settings.concurrency() * 2, settings.concurrency() + settings.prefetch()));
    this.consumer =
        new InstanceConsumer(
            new KafkaConsumer<>(props),
            settings.topic(),
            store,
            pool,
            metrics,
            settings.workerId(),
            POLL_TIMEOUT,
            CLAIM_ERROR_BACKOFF);
    this.consumerThread = new Thread(consumer, "carillon-consumer-" + settings.workerId());
    this.admin = AdminServer.start("worker", settings.admin(), registry, this::health);
    consumerThread.start();
    log.info(
        "Worker {} started: {} slot(s), group {}, topic {}, plugins {}, built-in handlers {}",
        settings.workerId(),
        settings.concurrency(),
        settings.group(),
        settings.topic(),
        plugins.types(),
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
    log.info("Effective configuration: {}", settings.describe());
    return start(
        settings,
        PluginRegistry.load(WorkerService.class.getClassLoader(), settings.pluginDir()),
        Clock.systemUTC());
  }

  /**
   * Starts a worker with the given plugins (embedding, tests). The worker closes {@code plugins}.
   */
  public static WorkerService start(WorkerSettings settings, PluginRegistry plugins, Clock clock) {
    try {
      return new WorkerService(settings, plugins, clock);
    } catch (RuntimeException e) {
      plugins.close();
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

  private HealthReport health() {
    boolean live = consumerThread.isAlive() || closed.get();
    return new HealthReport(
        live,
        live && !closed.get(),
        Map.of(
            "workerId", settings.workerId(),
            "running", pool.running(),
            "freeSlots", pool.freeSlots(),
            "plugins", List.copyOf(plugins.types())));
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
      closeQuietly("heartbeat", heartbeater);
      closeQuietly("run pool", pool);
      closeQuietly("publisher", publisher);
      closeQuietly("admin server", admin);
      closeQuietly("plugins", plugins);
      closeQuietly("exec agents", execAgents);
      closeQuietly("database", db);
      registry.close();
      log.info("Worker {} stopped", settings.workerId());
    }
  }

  private void republish(List<ClaimedInstance> released) {
    if (released.isEmpty()) {
      return;
    }
    List<InstanceMessage> messages =
        released.stream()
            .map(i -> InstanceMessage.of(i.id(), i.taskId(), i.windowKey(), clock.instant()))
            .toList();
    try {
      List<Long> acked = publisher.publish(messages);
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
