package dev.carillon.retry;

import dev.carillon.admin.AdminServer;
import dev.carillon.admin.DependencyProbe;
import dev.carillon.admin.HealthReport;
import dev.carillon.alert.AlertSettings;
import dev.carillon.alert.AlertSink;
import dev.carillon.alert.Alerts;
import dev.carillon.alert.WebhookSink;
import dev.carillon.config.Config;
import dev.carillon.election.LeaderElection;
import dev.carillon.election.LeaderTerm;
import dev.carillon.election.NotLeaderException;
import dev.carillon.election.Zk;
import dev.carillon.kafka.CachedQueueRouter;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.loop.Pace;
import dev.carillon.loop.PeriodicLoop;
import dev.carillon.loop.PeriodicLoop.StopMode;
import dev.carillon.metrics.ServiceMeters;
import dev.carillon.metrics.TaskLabel;
import dev.carillon.retry.alert.AlertOutbox;
import dev.carillon.retry.alert.AlertWebhook;
import dev.carillon.retry.alert.DeadLetters;
import dev.carillon.retry.archive.ArchiveScanner;
import dev.carillon.retry.ratelimit.RepublishLimiter;
import dev.carillon.retry.ratelimit.ScanBudget;
import dev.carillon.retry.scan.DecisionScanner;
import dev.carillon.retry.scan.DueRetryScanner;
import dev.carillon.retry.scan.Republisher;
import dev.carillon.retry.scan.StrandedScanner;
import dev.carillon.retry.scan.TimeoutScanner;
import dev.carillon.retry.scan.WaitingScanner;
import dev.carillon.retry.stats.InstanceGauges;
import dev.carillon.retry.tuning.ConfigTopicListener;
import dev.carillon.retry.tuning.Tuning;
import dev.carillon.store.ArchiveStore;
import dev.carillon.store.Database;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.FencedException;
import dev.carillon.store.InstanceStatsStore;
import dev.carillon.store.PresenceStore;
import dev.carillon.store.RetryStore;
import dev.carillon.store.ScanRecords;
import dev.carillon.store.TaskStore;
import dev.carillon.trace.Tracing;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retry service's composition root: wires the database, Kafka, the config topic, Curator and
 * the clock, and runs the scan loop while this instance leads (service name {@code retry}).
 *
 * <p>One pass ({@link #scanOnce()}) runs every scanner once, in this order: timeouts, decisions,
 * due retries, stranded instances, housekeeping. The leader runs a pass every {@code
 * retry.scan-interval}; standbys only keep the config state current. Losing leadership stops the
 * loop at once: the pass checks leadership before every scanner and every decision.
 *
 * <p>Each leadership is a {@link LeaderTerm}: every write of a pass carries the epoch the term took
 * in PostgreSQL, so a leader deposed while it could not tell (frozen, cut off from ZooKeeper)
 * writes nothing once its successor took a newer one; the pass ends at the first refused write.
 *
 * <p>Thread-safe. Passes never overlap within one service. {@link #close()} leaves the election
 * first, so a standby takes over while this one shuts down.
 */
public final class RetryService implements AutoCloseable {
  /** The name under which the service is elected and acts in the event log. */
  public static final String SERVICE = "retry";

  /** Pause between rounds of the alert outbox. */
  static final Duration ALERT_ROUND = Duration.ofSeconds(1);

  private static final Logger log = LoggerFactory.getLogger(RetryService.class);

  private final RetrySettings settings;
  private final Clock clock;
  private final ServiceMeters meters;
  private final PrometheusMeterRegistry registry;
  private final RetryMetrics metrics;
  private final Tuning tuning;
  private final RepublishLimiter limiter;
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final PeriodicLoop scanning;
  private final PeriodicLoop heartbeat;
  private final PeriodicLoop stats;
  private final Object passLock = new Object();
  private final ScannerFailures failures = new ScannerFailures();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicReference<RetryMetrics.Totals> lastHeartbeat;
  private final long startedNanos = System.nanoTime();
  private volatile long lastPassNanos = System.nanoTime();

  private Database database;
  private ConfigTopicListener configListener;
  // The other alerts (a growing backlog); DEAD goes through the outbox only (see DeadLetters).
  private Alerts alerts;
  private InstanceGauges gauges;
  private Optional<AlertOutbox> outbox = Optional.empty();
  private Optional<PeriodicLoop> alerting = Optional.empty();
  private RetryStore store;
  private TimeoutScanner timeouts;
  private DecisionScanner decisions;
  private DueRetryScanner dueRetries;
  private StrandedScanner stranded;
  private ArchiveScanner archive;
  private WaitingScanner waiting;
  private ScanRecords scanRecords;
  private LeaderElection election;
  private LeaderTerm term;
  private CuratorFramework zk;
  private DependencyProbe postgres;
  private AdminServer admin;

  private RetryService(RetrySettings settings, Clock clock, TaskLabel tasks) {
    this.settings = settings;
    this.clock = clock;
    this.meters = ServiceMeters.create();
    this.registry = meters.registry();
    this.metrics = new RetryMetrics(registry, tasks);
    metrics.scanners(
        List.of(
            "timeout",
            DecisionScanner.SCANNER,
            "due-retry",
            "stranded",
            "archive",
            "waiting",
            "scan-record",
            dev.carillon.retry.alert.AlertOutbox.SCANNER));
    this.limiter = new RepublishLimiter(settings.rate(), clock);
    this.tuning = new Tuning(settings.rate(), limiter::update, metrics, settings.configSigner());
    this.lastHeartbeat = new AtomicReference<>(metrics.totals());
    // Not interrupting on stop: a statement in flight finishes its transaction; the pass checks
    // leadership before its next step and stops there.
    this.scanning =
        new PeriodicLoop(
            "retry-scan",
            Pace.fixedDelay(
                settings.scanInterval(), settings.scanInterval(), settings.scanInterval()),
            StopMode.FINISH_ROUND,
            () -> lastPassNanos = System.nanoTime(),
            this::leaderPass);
    this.heartbeat =
        new PeriodicLoop(
            "retry-heartbeat",
            Pace.fixedDelay(
                settings.heartbeatInterval(),
                settings.heartbeatInterval(),
                settings.heartbeatInterval()),
            StopMode.FINISH_ROUND,
            this::logHeartbeat);
    this.stats =
        new PeriodicLoop(
            "retry-stats",
            Pace.fixedDelay(Duration.ZERO, InstanceGauges.INTERVAL, InstanceGauges.INTERVAL),
            StopMode.FINISH_ROUND,
            this::refreshStats);
  }

  /** Starts with a default random source for jitter. */
  public static RetryService start(Config config, Clock clock) {
    return start(config, clock, RandomGenerator.of("L64X128MixRandom"));
  }

  /**
   * Reads the settings, connects to PostgreSQL (checking its schema, or migrating it with {@code
   * db.migrate}), Kafka and ZooKeeper, reads the config topic up to its end (at most {@code
   * retry.config-wait}), joins the election and opens the admin port.
   *
   * @param clock drives the rate limits, message timestamps and the heartbeat; every due-ness
   *     decision uses the database's clock instead
   * @param random the source of jitter samples (seed it in tests)
   * @throws dev.carillon.config.ConfigException when the configuration is wrong
   */
  public static RetryService start(Config config, Clock clock, RandomGenerator random) {
    return start(config, clock, random, Optional.empty());
  }

  /**
   * As {@link #start(Config, Clock, RandomGenerator)}, with spans going to {@code tracing} instead
   * of where the configuration says (tests, embedding). The service closes it.
   */
  public static RetryService start(
      Config config, Clock clock, RandomGenerator random, Tracing tracing) {
    return start(config, clock, random, Optional.of(tracing));
  }

  private static RetryService start(
      Config config, Clock clock, RandomGenerator random, Optional<Tracing> given) {
    RetrySettings settings = RetrySettings.from(config);
    RetryService s =
        new RetryService(settings, settings.common().offsetClock(clock), TaskLabel.from(config));
    s.resources.push(s.meters);
    try {
      Tracing tracing =
          given.orElseGet(() -> Tracing.from(config, SERVICE, settings.common().instanceId()));
      s.resources.push(tracing);
      AlertSettings alertSettings = AlertSettings.from(config, Optional.of("retry.alert-webhook"));
      log.info(
          "Retry telemetry: tracing {}, alerts {}", tracing.describe(), alertSettings.describe());
      s.wire(random, tracing, alertSettings);
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  private void wire(RandomGenerator random, Tracing tracing, AlertSettings alertSettings) {
    log.info("Starting the retry service: {}", settings.describe());
    database = Database.forService(settings.common().db(), null);
    resources.push(database);
    database.bindMetrics(registry);
    postgres =
        new DependencyProbe(
            "postgres",
            () -> database.ping(DependencyProbe.DEFAULT_TIMEOUT),
            DependencyProbe.DEFAULT_EVERY,
            DependencyProbe.DEFAULT_TIMEOUT);
    resources.push(postgres);
    RetryStore store = new RetryStore(database.dsl());
    String actor = SERVICE + ":" + settings.common().instanceId();
    term =
        new LeaderTerm(
            SERVICE,
            settings.common().instanceId(),
            new EpochStore(database.dsl()),
            () -> election != null && election.confirm(),
            registry);

    TopicAdmin.require(
        settings.common().kafka(),
        List.of(
            new TopicAdmin.Need(
                settings.instancesTopic(), settings.common().instancePartitions(), false),
            new TopicAdmin.Need(settings.configTopic(), 1, true)));
    configListener =
        new ConfigTopicListener(settings.common().kafka(), settings.configTopic(), tuning);
    resources.push(configListener);
    configListener.start();
    try {
      if (!configListener.awaitCaughtUp(settings.configWait())) {
        log.warn(
            "Config topic {} not read to its end within {}; starting with what is known",
            settings.configTopic(),
            settings.configWait());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the config topic", e);
    }

    InstancePublisher publisher =
        new InstancePublisher(
            settings.common().kafka(),
            settings.instancesTopic(),
            InstancePublisher.DEFAULT_ACK_TIMEOUT,
            new CachedQueueRouter(
                new TaskStore(database.dsl())::queues,
                CachedQueueRouter.DEFAULT_TTL,
                System::nanoTime),
            tracing,
            "republish");
    resources.push(publisher);
    publisher.bindMetrics(meters);
    Republisher republisher = new Republisher(publisher, clock, metrics);

    Optional<WebhookSink> webhook =
        alertSettings
            .webhook()
            .map(
                u ->
                    new WebhookSink(
                        u,
                        WebhookSink.DEFAULT_MAX_ATTEMPTS,
                        WebhookSink.DEFAULT_FIRST_BACKOFF,
                        "retry-alert-webhook",
                        registry));
    alerts =
        new Alerts(
            webhook.<AlertSink>map(w -> w).orElse(AlertSink.none()),
            alertSettings.repeatAfter(),
            clock,
            registry);
    resources.push(alerts);
    gauges =
        new InstanceGauges(
            new InstanceStatsStore(database.dsl()),
            alerts,
            alertSettings.backlogAfter(),
            clock,
            registry);
    this.store = store;
    // DEAD alerts: the durable outbox, to the same webhook, signed with retry.alert-secret.
    outbox =
        alertSettings
            .webhook()
            .map(
                u ->
                    new AlertOutbox(
                        store,
                        new AlertWebhook(u, settings.alertSecret()),
                        term,
                        metrics,
                        actor,
                        System::nanoTime));
    if (outbox.isPresent() && settings.alertSecret().isEmpty()) {
      log.warn(
          "An alert webhook is set without retry.alert-secret: DEAD alerts are sent unsigned, and"
              + " the receiver cannot tell them from forged ones");
    }
    // Its own loop, so that a slow or absent webhook never delays a scan.
    alerting =
        outbox.map(
            outbox ->
                new PeriodicLoop(
                    "retry-alerts",
                    Pace.fixedDelay(ALERT_ROUND, ALERT_ROUND, ALERT_ROUND),
                    StopMode.FINISH_ROUND,
                    () -> {
                      try {
                        outbox.sendOnce();
                      } catch (NotLeaderException | FencedException e) {
                        log.debug("Alert round skipped: {}", e.getMessage());
                      }
                    }));

    int batch = settings.batchSize();
    timeouts = new TimeoutScanner(store, metrics, batch, actor);
    decisions =
        new DecisionScanner(
            store,
            new TaskStore(database.dsl()),
            tuning,
            random,
            new DeadLetters(outbox.isPresent(), metrics, alerts),
            metrics,
            batch,
            actor);
    dueRetries = new DueRetryScanner(store, limiter, republisher, metrics, batch, actor);
    stranded =
        new StrandedScanner(
            store,
            limiter,
            republisher,
            metrics,
            batch,
            settings.undispatchedAfter(),
            settings.strandedAfter());
    waiting = new WaitingScanner(new PresenceStore(database.dsl()), metrics, System::nanoTime);
    archive =
        new ArchiveScanner(new ArchiveStore(database.dsl()), metrics, settings.retention(), batch);
    scanRecords = new ScanRecords(database.dsl());

    admin = AdminServer.start(SERVICE, settings.common().admin(), registry, this::health);
    resources.push(admin);

    resources.push(() -> heartbeat.stopAndWait(Duration.ofSeconds(5)));
    heartbeat.start();

    zk =
        Zk.connect(
            settings.common().zkConnect(),
            settings.common().zkSessionTimeout(),
            settings.common().zkDigest());
    resources.push(zk::close);
    election =
        new LeaderElection(
            zk,
            SERVICE,
            settings.common().instanceId(),
            settings.common().zkDigest(),
            new LeaderElection.Listener() {
              @Override
              public void onLeadership() {
                term.begin();
                startScanning();
              }

              @Override
              public void onLossOfLeadership() {
                term.end();
                stopScanning();
              }
            });
    resources.push(election);
    election.start();
  }

  private void startScanning() {
    scanning.start();
    stats.start();
    alerting.ifPresent(PeriodicLoop::start);
    log.info("Leading: scanning every {}", settings.scanInterval());
  }

  private void stopScanning() {
    scanning.stop();
    stats.stop();
    gauges.clear();
    alerting.ifPresent(PeriodicLoop::stop);
    log.warn("Not leading: scanning stopped");
  }

  /**
   * One scheduled pass; a failed one (database or Kafka down) is logged by the loop and retried.
   */
  private void leaderPass() {
    pass(() -> election.isLeader() && !closed.get());
  }

  /**
   * Runs one pass of every scanner now, on the calling thread. For tests (move the clock or the
   * database state, then run one pass) and for operators; the scheduled loop runs the same passes
   * while leading. Only a leader writes: on a standby (no leadership term, or ZooKeeper does not
   * confirm it) the pass does nothing and reports itself incomplete.
   */
  public ScanReport scanOnce() {
    return pass(() -> !closed.get());
  }

  private ScanReport pass(BooleanSupplier keepGoing) {
    synchronized (passLock) {
      Fence fence;
      try {
        fence = term.fence();
      } catch (NotLeaderException e) {
        log.debug("Scan pass skipped: {}", e.getMessage());
        return new ScanReport(0, 0, 0, 0, 0, 0, 0, false);
      }
      try {
        return pass(keepGoing, fence);
      } catch (FencedException e) {
        term.fenced(e);
        lastPassNanos = System.nanoTime();
        return new ScanReport(0, 0, 0, 0, 0, 0, 0, false);
      }
    }
  }

  /**
   * One pass under {@code fence}. Each scanner is a failure domain of its own: one that throws (its
   * statement failed, the database is slow) is logged and counted and the pass goes on with the
   * next, so a failing decision scan does not stop due retries, stranded instances or the archive.
   * Only a refused write (this instance was deposed) ends the pass.
   */
  private ScanReport pass(BooleanSupplier keepGoing, Fence fence) {
    Instant startedAt = clock.instant();
    ScanBudget budget = new ScanBudget(limiter.settings().maxPerScan());
    boolean complete = true;
    int timedOut = 0;
    int retried = 0;
    int dead = 0;
    int promoted = 0;
    int republished = 0;
    int heldBack = 0;
    int archived = 0;
    // Checked before every scanner: leadership may end mid-pass.
    boolean going = keepGoing.getAsBoolean();
    if (going) {
      Integer t = inOwnDomain("timeout", () -> timeouts.scan(fence));
      complete &= t != null;
      timedOut = t == null ? 0 : t;
    }
    going = going && keepGoing.getAsBoolean();
    if (going) {
      DecisionScanner.Result d =
          inOwnDomain(DecisionScanner.SCANNER, () -> decisions.scan(keepGoing, fence));
      complete &= d != null;
      retried = d == null ? 0 : d.retried();
      dead = d == null ? 0 : d.dead();
    }
    going = going && keepGoing.getAsBoolean();
    if (going) {
      DueRetryScanner.Result due = inOwnDomain("due-retry", () -> dueRetries.scan(budget, fence));
      complete &= due != null;
      promoted = due == null ? 0 : due.promoted();
      republished = due == null ? 0 : due.republished();
      heldBack = due == null ? 0 : due.heldBack();
    }
    going = going && keepGoing.getAsBoolean();
    if (going) {
      StrandedScanner.Result st = inOwnDomain("stranded", () -> stranded.scan(budget, fence));
      complete &= st != null;
      republished += st == null ? 0 : st.republished();
      heldBack += st == null ? 0 : st.heldBack();
    }
    going = going && keepGoing.getAsBoolean();
    if (going) {
      Integer a = inOwnDomain("archive", () -> archive.scan(fence));
      complete &= a != null;
      archived = a == null ? 0 : a;
    }
    going = going && keepGoing.getAsBoolean();
    if (going) {
      complete &= inOwnDomain("waiting", waiting::scan) != null;
    }
    complete &= going;
    lastPassNanos = System.nanoTime();
    metrics.scanFinished(clock.millis());
    ScanReport report =
        new ScanReport(
            timedOut, retried, dead, promoted, republished, heldBack, archived, complete);
    // Kept in the database for the API (another process), which shows the last pass; a failed
    // write is logged and counted like a scanner's and loses only this record.
    boolean completed = complete;
    int[] counts = {timedOut, retried, dead, promoted, republished, heldBack, archived};
    inOwnDomain(
        "scan-record",
        () -> {
          scanRecords.record(
              new ScanRecords.Pass(
                  settings.common().instanceId(),
                  isLeader(),
                  startedAt,
                  clock.instant(),
                  completed,
                  counts[0],
                  counts[1],
                  counts[2],
                  counts[3],
                  counts[4],
                  counts[5],
                  counts[6]));
          return Boolean.TRUE;
        });
    return report;
  }

  /**
   * Runs one scanner; returns its result, or null when it failed (logged by streak, counted as
   * {@code carillon.retry.scan.failures{scanner}}). A refused write is not the scanner's failure:
   * it ends the pass.
   */
  private <T> T inOwnDomain(String scanner, Supplier<T> scan) {
    try {
      T result = scan.get();
      failures.succeeded(scanner);
      return result;
    } catch (FencedException e) {
      throw e;
    } catch (RuntimeException e) {
      metrics.scanFailed(scanner);
      failures.failed(scanner, e);
      return null;
    }
  }

  /**
   * Reads the instance gauges now and raises a backlog alert when work waits too long; the leader
   * does this every {@link InstanceGauges#INTERVAL}. Tests and operators may call it any time.
   */
  public InstanceStatsStore.InstanceStats refreshStats() {
    return gauges.refresh();
  }

  private void logHeartbeat() {
    RetryMetrics.Totals now = metrics.totals();
    RetryMetrics.Totals delta = now.minus(lastHeartbeat.getAndSet(now));
    log.info(
        "retry heartbeat: leader={} scanned={} timed out={} retried={} dead={} republished={} held"
            + " back={} archived={} config version={} last scan={}",
        isLeader(),
        delta.scanned(),
        delta.timedOut(),
        delta.retried(),
        delta.dead(),
        delta.republished(),
        delta.heldBack(),
        delta.archived(),
        tuning.lastOffset(),
        now.lastScanEpochMillis() == 0 ? "never" : Instant.ofEpochMilli(now.lastScanEpochMillis()));
  }

  /**
   * Live unless this leader's passes stopped ending (a pass whose scanners fail still ends, and the
   * service recovers by itself once the dependency returns); ready when the config topic was read
   * to its end and PostgreSQL answers.
   */
  private HealthReport health() {
    boolean leader = isLeader();
    Duration sincePass = Duration.ofNanos(System.nanoTime() - lastPassNanos);
    Duration stuckAfter = settings.scanInterval().multipliedBy(10).plusMinutes(1);
    // A leader whose passes stopped is stuck (a hung statement, a dead loop): restart it.
    boolean live = !leader || sincePass.compareTo(stuckAfter) < 0;
    boolean caughtUp = configListener != null && configListener.isCaughtUp();
    DependencyProbe.Status db =
        postgres == null
            ? new DependencyProbe.Status(false, "DOWN: not started")
            : postgres.status();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("leader", leader);
    details.put("sinceLastPassMs", sincePass.toMillis());
    details.put("configCaughtUp", caughtUp);
    details.put("configVersion", tuning.lastOffset());
    details.put("postgres", db.detail());
    if (term != null) {
      term.current().ifPresent(f -> details.put("epoch", f.epoch()));
      details.put("fencedWrites", term.fencedWrites());
    }
    details.put("uptimeMs", Duration.ofNanos(System.nanoTime() - startedNanos).toMillis());
    return new HealthReport(live, caughtUp && db.up(), details);
  }

  /** Whether this instance leads the retry service now. */
  public boolean isLeader() {
    return election != null && election.isLeader();
  }

  /** This instance's leadership terms and their epochs. */
  public LeaderTerm term() {
    return term;
  }

  /** The Curator client, so tests can expire its session. */
  CuratorFramework curator() {
    return zk;
  }

  /** The live overrides from the config topic. */
  public Tuning tuning() {
    return tuning;
  }

  /** The service's meters. */
  public RetryMetrics metrics() {
    return metrics;
  }

  /** The settings in force. */
  public RetrySettings settings() {
    return settings;
  }

  /** The admin port (useful when configured as 0). */
  public int adminPort() {
    return admin.port();
  }

  /** DEAD instances whose alert the webhook has not acknowledged yet (0 without a webhook). */
  public int pendingAlerts() {
    return outbox.isPresent() ? store.countUnalerted() : 0;
  }

  /**
   * One round of the alert outbox now, on the calling thread (tests); the leader's loop runs the
   * same rounds every second.
   *
   * @return the alerts delivered, 0 without a webhook or when not leading
   */
  public int alertOnce() throws InterruptedException {
    if (outbox.isEmpty()) {
      return 0;
    }
    try {
      return outbox.get().sendOnce();
    } catch (NotLeaderException | FencedException e) {
      return 0;
    }
  }

  /** Leaves the election, stops the loop and closes every connection; idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    // Leave the election first so a standby takes over, then let a pass in flight finish
    // before the connections it uses are closed.
    if (election != null) {
      election.close();
    }
    stats.stopAndWait(Duration.ofSeconds(10));
    if (!scanning.stopAndWait(Duration.ofSeconds(10))) {
      log.warn("A scan pass did not finish within 10s of close");
    }
    alerting.ifPresent(l -> l.stopAndWait(Duration.ofSeconds(10)));
    synchronized (passLock) {
      // Waits for a scanOnce() running on another thread.
    }
    while (!resources.isEmpty()) {
      AutoCloseable r = resources.pop();
      try {
        r.close();
      } catch (Exception e) {
        log.warn("Closing {} failed: {}", r, e.toString());
      }
    }
    log.info("Retry service stopped");
  }
}
