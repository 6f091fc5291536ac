package dev.carillon.trigger;

import dev.carillon.admin.AdminServer;
import dev.carillon.admin.DependencyProbe;
import dev.carillon.admin.HealthReport;
import dev.carillon.alert.AlertSettings;
import dev.carillon.alert.AlertSink;
import dev.carillon.alert.Alerts;
import dev.carillon.alert.WebhookSink;
import dev.carillon.config.CommonSettings;
import dev.carillon.config.Config;
import dev.carillon.control.ApiServer;
import dev.carillon.control.ApiSettings;
import dev.carillon.control.ControlPlane;
import dev.carillon.control.Insight;
import dev.carillon.control.KafkaDispatch;
import dev.carillon.election.LeaderElection;
import dev.carillon.election.LeaderTerm;
import dev.carillon.election.NotLeaderException;
import dev.carillon.election.Zk;
import dev.carillon.kafka.CachedQueueRouter;
import dev.carillon.kafka.ConfigTopic;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.kafka.Topics;
import dev.carillon.loop.Pace;
import dev.carillon.loop.PeriodicLoop;
import dev.carillon.loop.PeriodicLoop.StopMode;
import dev.carillon.metrics.ServiceMeters;
import dev.carillon.metrics.TaskLabel;
import dev.carillon.store.ConditionStore;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.DependencyQueries;
import dev.carillon.store.EpochStore;
import dev.carillon.store.FencedException;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.OverviewQueries;
import dev.carillon.store.PresenceStore;
import dev.carillon.store.RunEvidenceStore;
import dev.carillon.store.ScanRecords;
import dev.carillon.store.TaskStore;
import dev.carillon.store.TriggerQueries;
import dev.carillon.store.WindowStore;
import dev.carillon.trace.Tracing;
import dev.carillon.trigger.clock.DatabaseClock;
import dev.carillon.trigger.condition.ConditionPoller;
import dev.carillon.trigger.condition.ConditionRegistry;
import dev.carillon.trigger.dependency.DependencyReleaser;
import dev.carillon.trigger.dispatch.DefinitionQueueRouter;
import dev.carillon.trigger.dispatch.Dispatcher;
import dev.carillon.trigger.event.EventConsumer;
import dev.carillon.trigger.plan.TickPlanner;
import dev.carillon.trigger.tick.DefinitionCache;
import dev.carillon.trigger.tick.TickResult;
import dev.carillon.trigger.tick.TickTelemetry;
import dev.carillon.trigger.tick.TriggerLoop;
import dev.carillon.trigger.tick.TriggerMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.zone.ZoneRulesProvider;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trigger service's composition root: database, Kafka publisher, Curator client, leader
 * election (service {@code trigger}), tick loop, dispatcher, admin server and the control-plane
 * API. Only the leader ticks and sweeps; standbys wait. Every replica, leader or standby, serves
 * the API (on its own port, threads and database connections). Leadership loss stops the tick loop
 * at once.
 *
 * <p>Each leadership is a {@link LeaderTerm}: the leader's writes (ticks, dispatch stamps,
 * dependency releases, event and condition instances) carry the epoch its term took in PostgreSQL,
 * and a deposed leader's writes are refused there, whatever it believes.
 *
 * <p>{@link #close()} leaves the election (a standby takes over at once) and releases everything in
 * reverse order. Idempotent.
 */
public final class TriggerService implements AutoCloseable {
  /** The admin port unless {@code admin.port} says otherwise. */
  public static final int DEFAULT_ADMIN_PORT = 8081;

  /** The election's service name: {@code /carillon/trigger/leader}. */
  public static final String SERVICE = "trigger";

  /** The consumer group of the event-trigger consumer; a new leader resumes at its offsets. */
  public static final String EVENTS_GROUP = "carillon-trigger-events";

  private static final Logger log = LoggerFactory.getLogger(TriggerService.class);

  /** How long a config-topic read or write of the API waits for Kafka. */
  private static final Duration CONFIG_TIMEOUT = Duration.ofSeconds(10);

  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Clock hostClock;
  private DatabaseClock clock;
  private final TriggerSettings settings;
  private final TriggerMetrics metrics;
  private Database database;
  private CuratorFramework curator;
  // Read by the API's threads (the overview names the leader); set once while wiring.
  private volatile LeaderElection election;
  private LeaderTerm term;
  private DependencyProbe postgres;
  private TriggerLoop loop;
  private DependencyReleaser releaser;
  private EventConsumer events;
  private ConditionPoller conditions;
  private final List<PeriodicLoop> leaderLoops = new ArrayList<>();
  private Dispatcher dispatcher;
  private AdminServer admin;
  private ApiServer api;
  private final ApiSettings apiSettings;

  private TriggerService(
      Clock hostClock, TriggerSettings settings, ApiSettings apiSettings, TriggerMetrics metrics) {
    this.hostClock = hostClock;
    this.settings = settings;
    this.apiSettings = apiSettings;
    this.metrics = metrics;
  }

  /**
   * Starts a trigger from configuration; see {@link CommonSettings}, {@link TriggerSettings} and
   * {@link ApiSettings} for the keys. Logs the effective configuration once, secrets masked.
   *
   * @param config the configuration
   * @param clock this host's clock ({@code Clock.systemUTC()} in production), moved by {@code
   *     clock.offset}; the trigger ticks on PostgreSQL's time, measured against it every tick
   *     ({@link DatabaseClock})
   * @return the running service; it joins the election at once
   * @throws dev.carillon.config.ConfigException if a setting is missing or wrong, including a
   *     missing {@code api.tokens-file} without {@code api.insecure-local=true}
   * @throws IllegalArgumentException naming the tokens file and line when it is wrong
   */
  public static TriggerService start(Config config, Clock clock) {
    return start(config, clock, Optional.empty());
  }

  /**
   * As {@link #start(Config, Clock)}, with spans going to {@code tracing} instead of where the
   * configuration says (tests, embedding). The service closes it.
   */
  public static TriggerService start(Config config, Clock clock, Tracing tracing) {
    return start(config, clock, Optional.of(tracing));
  }

  private static TriggerService start(Config config, Clock clock, Optional<Tracing> given) {
    CommonSettings common = CommonSettings.from(config, DEFAULT_ADMIN_PORT);
    TriggerSettings settings = TriggerSettings.from(config);
    ApiSettings api = ApiSettings.from(config);
    log.info("Trigger configuration: {} {} {}", common.describe(), settings, api.describe());
    // Fire times are only as right as the zone rules; operators compare this with IANA's latest.
    log.info(
        "Time-zone rules: tzdb {} in Java {}",
        ZoneRulesProvider.getVersions("UTC").lastKey(),
        System.getProperty("java.version"));
    ServiceMeters meters = ServiceMeters.create();
    TriggerService s =
        new TriggerService(
            common.offsetClock(clock),
            settings,
            api,
            new TriggerMetrics(meters.registry(), TaskLabel.from(config)));
    s.resources.push(meters);
    try {
      Tracing tracing = given.orElseGet(() -> Tracing.from(config, SERVICE, common.instanceId()));
      s.resources.push(tracing);
      AlertSettings alerts = AlertSettings.from(config, Optional.empty());
      log.info("Trigger telemetry: tracing {}, alerts {}", tracing.describe(), alerts.describe());
      s.wire(common, meters, tracing, alerts);
      return s;
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
  }

  private void wire(
      CommonSettings common, ServiceMeters meters, Tracing tracing, AlertSettings alertSettings) {
    PrometheusMeterRegistry registry = meters.registry();
    String actor = "trigger:" + common.instanceId();
    database = Database.forService(common.db(), null);
    resources.push(database);
    database.bindMetrics(registry);
    TopicAdmin.require(
        common.kafka(),
        List.of(new TopicAdmin.Need(settings.topic(), common.instancePartitions(), false)));
    postgres =
        new DependencyProbe(
            "postgres",
            () -> database.ping(DependencyProbe.DEFAULT_TIMEOUT),
            DependencyProbe.DEFAULT_EVERY,
            DependencyProbe.DEFAULT_TIMEOUT);
    resources.push(postgres);
    WindowStore windows = new WindowStore(database.dsl());
    TriggerQueries timeSource = new TriggerQueries(database.dsl());
    clock = new DatabaseClock(hostClock, timeSource::databaseTime, settings.maxClockSkew());
    // Known from the start, so that no loop reads this host's time uncorrected.
    clock.sync();
    Gauge.builder("carillon.trigger.clock.skew", clock, c -> c.offset().toNanos() / 1e9)
        .description(
            "seconds PostgreSQL's clock is ahead of this host's (negative: behind); the trigger"
                + " ticks on PostgreSQL's")
        .register(registry);
    term =
        new LeaderTerm(
            SERVICE,
            common.instanceId(),
            new EpochStore(database.dsl()),
            () -> election != null && election.confirm(),
            registry);
    // One copy of the definitions for the four loops that read them (DefinitionCache), and for
    // the publisher's routing of the instances they create.
    TriggerQueries queries = new TriggerQueries(database.dsl());
    DefinitionCache definitions = new DefinitionCache(queries);
    InstancePublisher publisher =
        new InstancePublisher(
            common.kafka(),
            settings.topic(),
            settings.ackTimeout(),
            new DefinitionQueueRouter(
                definitions,
                new CachedQueueRouter(
                    new TaskStore(database.dsl())::queues,
                    CachedQueueRouter.DEFAULT_TTL,
                    System::nanoTime)),
            tracing,
            "publish");
    resources.push(publisher);
    publisher.bindMetrics(meters);
    AlertSink sink =
        alertSettings
            .webhook()
            .<AlertSink>map(
                u ->
                    new WebhookSink(
                        u,
                        WebhookSink.DEFAULT_MAX_ATTEMPTS,
                        WebhookSink.DEFAULT_FIRST_BACKOFF,
                        "trigger-alert-webhook",
                        registry))
            .orElse(AlertSink.none());
    Alerts alerts = new Alerts(sink, alertSettings.repeatAfter(), clock, registry);
    resources.push(alerts);
    curator = Zk.connect(common.zkConnect(), common.zkSessionTimeout(), common.zkDigest());
    resources.push(curator);

    dispatcher =
        new Dispatcher(
            publisher,
            windows,
            clock,
            settings.redispatchAfter(),
            settings.dispatchSweep(),
            this::isLeader,
            term,
            metrics,
            settings.maxDispatchBacklog());
    dispatcher.start();
    resources.push(dispatcher);

    loop =
        new TriggerLoop(
            new TaskStore(database.dsl()),
            windows,
            queries,
            new TickPlanner(settings.planner(actor)),
            actor,
            clock,
            settings.tickInterval(),
            metrics,
            dispatcher::submit,
            this::mayCommit,
            term,
            definitions,
            new TickTelemetry(tracing, alerts, alertSettings),
            settings.createAhead());
    resources.push(loop::stopTicking);

    releaser =
        new DependencyReleaser(
            queries,
            definitions,
            windows,
            new DependencyQueries(database.dsl()),
            actor,
            clock,
            dispatcher::submit,
            this::mayCommit,
            term);
    leaderLoops.add(
        new PeriodicLoop(
            "trigger-dependencies",
            Pace.fixedDelay(settings.tickInterval()),
            StopMode.INTERRUPT,
            releaser::resync,
            leaderOnly(releaser::releaseOnce)));
    events =
        new EventConsumer(
            common.kafka(),
            EVENTS_GROUP,
            definitions,
            windows,
            actor,
            clock,
            dispatcher::submit,
            this::mayCommit,
            term,
            registry,
            settings.tickInterval());
    leaderLoops.add(
        new PeriodicLoop(
            "trigger-events",
            Pace.fixedDelay(Duration.ofMillis(50)),
            StopMode.INTERRUPT,
            leaderOnly(() -> events.pollOnce(Duration.ofMillis(500)))));
    resources.push(events::stop);

    conditions =
        new ConditionPoller(
            definitions,
            windows,
            new ConditionStore(database.dsl()),
            ConditionRegistry.load(TriggerService.class.getClassLoader()),
            actor,
            clock,
            dispatcher::submit,
            this::mayCommit,
            term);
    leaderLoops.add(
        new PeriodicLoop(
            "trigger-conditions",
            Pace.fixedDelay(settings.tickInterval()),
            StopMode.INTERRUPT,
            leaderOnly(conditions::pollOnce)));
    resources.push(
        () -> {
          leaderLoops.forEach(PeriodicLoop::stop);
          leaderLoops.forEach(l -> l.stopAndWait(Duration.ofSeconds(5)));
        });

    admin = AdminServer.start(SERVICE, common.admin(), registry, this::health);
    resources.push(admin);

    // The API's own pool, each statement bounded by the request timeout: API load can neither take
    // the tick's connections nor hold one forever. It logs in as the API's own role when
    // api.db-user is set (docs/security.md), and changes no schema: the trigger's pool has checked
    // it (or migrated it) already. Its socket timeout stays above that statement timeout (see
    // DbSettings), so a slow statement is cancelled by the server, not cut off.
    DbSettings apiDbSettings = apiSettings.db(common.db());
    Duration requestTimeout = apiSettings.requestTimeout();
    Database apiDb =
        Database.connect(
            apiDbSettings.withTimeouts(
                apiDbSettings.connectTimeout(),
                Duration.ofSeconds(requestTimeout.toSeconds() + 5),
                requestTimeout),
            null);
    resources.push(apiDb);
    WindowStore apiWindows = new WindowStore(apiDb.dsl());
    ControlPlane plane =
        new ControlPlane(
            clock,
            new TaskStore(apiDb.dsl()),
            new OperatorStore(apiDb.dsl()),
            apiWindows,
            new PresenceStore(apiDb.dsl()),
            new RunEvidenceStore(apiDb.dsl()),
            new ConfigTopic(
                apiSettings.kafka(common.kafka()),
                Topics.CONFIG,
                CONFIG_TIMEOUT,
                apiSettings.configSigner()),
            new KafkaDispatch(publisher, apiWindows, clock),
            apiSettings.bulkPerSecond(),
            ControlPlane.Sleeper.THREAD);
    Insight insight =
        new Insight(
            new OverviewQueries(apiDb.dsl()),
            new ScanRecords(apiDb.dsl()),
            new Insight.Leadership() {
              @Override
              public Optional<String> leader() {
                LeaderElection e = election;
                return e == null ? Optional.empty() : e.currentLeaderId();
              }

              @Override
              public String self() {
                return common.instanceId();
              }
            });
    api = ApiServer.start(apiSettings, plane, insight, registry);
    resources.push(api);

    election =
        new LeaderElection(
            curator,
            SERVICE,
            common.instanceId(),
            common.zkDigest(),
            new LeaderElection.Listener() {
              @Override
              public void onLeadership() {
                term.begin();
                metrics.leader(true);
                loop.startTicking();
                leaderLoops.forEach(PeriodicLoop::start);
              }

              @Override
              public void onLossOfLeadership() {
                term.end();
                loop.stopTicking();
                leaderLoops.forEach(PeriodicLoop::stop);
                events.stop();
                metrics.leader(false);
              }
            });
    resources.push(election);
    election.start();
  }

  /** Whether this instance leads now. */
  public boolean isLeader() {
    return election != null && election.isLeader();
  }

  /** The API's port (useful with {@code api.port=0}). */
  public int apiPort() {
    return api.port();
  }

  /** The last local check before a leader's write: leading, in a term. The fence decides. */
  private boolean mayCommit() {
    return isLeader() && term.isActive();
  }

  /**
   * A leader loop's step that ends quietly when this instance does not lead (the step wrote
   * nothing) or was fenced (the component reported it).
   */
  private static PeriodicLoop.Step leaderOnly(PeriodicLoop.Step step) {
    return () -> {
      try {
        step.run();
      } catch (NotLeaderException | FencedException e) {
        log.debug("Leader round skipped: {}", e.getMessage());
      }
    };
  }

  /** The trigger's meters. */
  public TriggerMetrics metrics() {
    return metrics;
  }

  /** This instance's leadership terms and their epochs. */
  public LeaderTerm term() {
    return term;
  }

  /** The admin server's port (useful with {@code admin.port=0}). */
  public int adminPort() {
    return admin.port();
  }

  /** The tick loop; tests call {@link TriggerLoop#tickOnce()} on it. */
  public TriggerLoop loop() {
    return loop;
  }

  /** The dispatcher; tests read its backlog. */
  public Dispatcher dispatcher() {
    return dispatcher;
  }

  /** The dependency releaser; tests call {@link DependencyReleaser#releaseOnce()} on it. */
  public DependencyReleaser releaser() {
    return releaser;
  }

  /** The settings in force. */
  public TriggerSettings settings() {
    return settings;
  }

  /** The Curator client, so tests can expire its session. */
  CuratorFramework curator() {
    return curator;
  }

  /**
   * Leadership, last tick and lag, and whether PostgreSQL answers. Live unless this leader's tick
   * thread stopped finishing rounds for a minute (or 30 tick intervals): ticks that fail because a
   * dependency is down still finish, and the service recovers by itself once it returns, so a
   * restart would not help. Ready while PostgreSQL answers and, when leading, ticks succeed (the
   * last no older than 10 intervals, at least 10 s); a standby is ready as long as PostgreSQL
   * answers.
   */
  public HealthReport health() {
    boolean leading = isLeader();
    Optional<TickResult> last = loop == null ? Optional.empty() : loop.lastTick();
    Instant now = clock == null ? hostClock.instant() : clock.instant();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("leader", leading);
    details.put("participant", election == null ? "" : election.participantId());
    details.put("inElection", election != null && election.joined());
    details.put("ticking", loop != null && loop.isTicking());
    DependencyProbe.Status db =
        postgres == null
            ? new DependencyProbe.Status(false, "DOWN: not started")
            : postgres.status();
    details.put("postgres", db.detail());
    if (term != null) {
      term.current().ifPresent(f -> details.put("epoch", f.epoch()));
      details.put("fencedWrites", term.fencedWrites());
    }
    Duration lag = null;
    if (last.isPresent()) {
      lag = Duration.between(last.get().now(), now);
      details.put("lastTick", last.get().now().toString());
      details.put("lastTickLagMs", lag.toMillis());
      details.put("lastTickDurationMs", last.get().took().toMillis());
    } else {
      details.put("lastTick", "never");
    }
    details.put("dispatchBacklog", dispatcher == null ? 0 : dispatcher.backlog());
    details.put("oldestUndispatchedMs", metrics.oldestUndispatched().toMillis());
    if (clock != null) {
      details.put("clockSkewMs", clock.offset().toMillis());
      details.put("clockSkewed", clock.skewed());
    }
    Duration interval = settings.tickInterval();
    Duration stuck = max(Duration.ofMinutes(1), interval.multipliedBy(30));
    Duration late = max(Duration.ofSeconds(10), interval.multipliedBy(10));
    boolean live = loop == null || !loop.isTicking() || loop.sinceLastRound().compareTo(stuck) <= 0;
    boolean ready =
        !closed.get() && db.up() && (!leading || (last.isPresent() && lag.compareTo(late) <= 0));
    return new HealthReport(live, ready, details);
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    while (!resources.isEmpty()) {
      AutoCloseable r = resources.pop();
      try {
        r.close();
      } catch (Exception e) {
        log.warn("Closing {} failed: {}", r, e.toString());
      }
    }
    log.info("Trigger stopped");
  }
}
