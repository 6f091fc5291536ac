package dev.carillon.bench.carillon;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.auth.Principal;
import dev.carillon.auth.Role;
import dev.carillon.auth.TokenFile;
import dev.carillon.auth.Tokens;
import dev.carillon.bench.BenchException;
import dev.carillon.bench.FireKey;
import dev.carillon.bench.Recorder;
import dev.carillon.bench.RunContext;
import dev.carillon.bench.SchedulerUnderTest;
import dev.carillon.bench.Stage;
import dev.carillon.bench.SteadyPlan;
import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.model.Durations;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.retry.RetryService;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.TaskStore;
import dev.carillon.trigger.TriggerService;
import dev.carillon.worker.WorkerService;
import dev.carillon.worker.WorkerSettings;
import dev.carillon.worker.plugin.PluginRegistry;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One run of Carillon's trigger, worker and retry service on a fresh database and topic. */
final class CarillonRun implements SchedulerUnderTest {
  static final String HANDLER = "bench-noop";
  static final int PARTITIONS = 4;
  static final int TRIGGER_POOL = 4;
  static final int RETRY_POOL = 2;
  static final int BENCH_POOL = 2;
  // The runs are no-ops: claim a whole poll batch ahead of the 10 run slots (worker.prefetch).
  static final int PREFETCH = 1000;
  // Long enough that no lease runs out during a burst of 20,000 on a busy machine.
  private static final Duration TASK_TIMEOUT = Duration.ofMinutes(10);
  // Creating N tasks and letting a tick start their cursors happens before the due instant T (not
  // measured). 20,000 tasks take 2.3-4 s on a quiet machine once warm (apply 2.0-3.3 s, cursors
  // 0.2-1 s) and ~7 s on the first, cold run: 5 s + 0.5 ms per task (15 s) leaves twice that. It
  // was 2 ms per task (45 s), which left room for only two warm-up bursts in the warm-up budget.
  private static final Duration BURST_LEAD = Duration.ofSeconds(5);
  private static final Duration BURST_LEAD_PER_TASK = Duration.ofNanos(500_000);
  private static final int APPLY_CHUNK = 500;
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration CHECK_EVERY = Duration.ofMillis(10);

  private static final Logger log = LoggerFactory.getLogger(CarillonRun.class);

  /** API tokens minted per run: the most clients the api workload can run. */
  static final int API_TOKENS = 200;

  /**
   * Each token's request rate and burst. Above what one client sends back to back, so that the api
   * workload measures the server's answers, not the limiter's refusals (it counts any 429).
   */
  static final int API_RATE = 10_000;

  private final List<String> apiTokens = new ArrayList<>();

  private final RunContext ctx;
  private final String topic;
  private final List<AutoCloseable> started = new ArrayList<>();
  private final Database db;
  private final TriggerService trigger;
  private final LongAdder outsidePlan = new LongAdder();
  private volatile Map<String, String> burstJobs = Map.of();
  private volatile Map<String, SteadyPlan.Task> steadyTasks = Map.of();
  private volatile Duration steadyPeriod;
  private volatile int burstSize;
  private volatile Instant burstDue;

  CarillonRun(RunContext ctx) {
    this.ctx = ctx;
    // Run ids restart with every runner, so a random part keeps topics apart within one broker.
    String unique = ctx.runId() + "-" + UUID.randomUUID().toString().substring(0, 8);
    this.topic = "carillon.bench." + unique;
    Map<String, String> common = new HashMap<>();
    common.put("db.url", ctx.jdbcUrl());
    common.put("db.user", ctx.user());
    common.put("db.password", ctx.password());
    common.put("kafka.bootstrap", ctx.kafkaBootstrap());
    common.put("zk.connect", ctx.zkConnect());
    common.put("admin.port", "0");
    common.put("instance.id", "bench-" + ctx.runId());
    // The run's database is fresh: the services migrate it themselves, as before the deploy step.
    common.put("db.migrate", "true");
    common.put("kafka.instances-partitions", Integer.toString(PARTITIONS));
    try {
      createTopic();
      Map<String, String> t = new HashMap<>(common);
      t.put("db.pool-size", Integer.toString(TRIGGER_POOL));
      t.put("trigger.topic", topic);
      t.put("trigger.create-ahead", Durations.format(ctx.createAhead()));
      // The API is served as in production, on a free port, with a tokens file: one viewer
      // token per client of the api workload (the other workloads do not call it).
      t.put("api.port", "0");
      t.put("api.bind-address", "127.0.0.1");
      t.put("api.tokens-file", writeTokens().toString());
      t.put("api.rate.per-second", Integer.toString(API_RATE));
      t.put("api.rate.burst", Integer.toString(API_RATE));
      trigger = TriggerService.start(Config.of(t), ctx.clock());
      started.add(trigger);

      Map<String, String> w = new HashMap<>(common);
      w.put("db.pool-size", Integer.toString(ctx.poolSize()));
      w.put("worker.concurrency", Integer.toString(ctx.threads()));
      w.put("worker.prefetch", Integer.toString(PREFETCH));
      w.put("worker.claim-ahead", Durations.format(ctx.claimAhead()));
      w.put("worker.topic", topic);
      w.put("worker.group", "bench-" + unique);
      started.add(
          WorkerService.start(
              WorkerSettings.from(Config.of(w)),
              PluginRegistry.of(List.of(new Noop())),
              ctx.clock()));

      Map<String, String> r = new HashMap<>(common);
      r.put("db.pool-size", Integer.toString(RETRY_POOL));
      r.put("retry.instances-topic", topic);
      started.add(RetryService.start(Config.of(r), ctx.clock()));

      db =
          Database.open(
              new DbSettings(ctx.jdbcUrl(), ctx.user(), ctx.password(), BENCH_POOL),
              DevStack.SESSION_TIME_ZONE_SQL);
      started.add(db);
      // A trigger of the previous run may still hold the election for a moment.
      await(trigger::isLeader, ctx.clock().instant().plus(START_TIMEOUT), "trigger leadership");
    } catch (RuntimeException e) {
      closeAll();
      throw e;
    }
  }

  /**
   * A tokens file of {@link #API_TOKENS} viewers in the temp directory, deleted when the run
   * closes.
   */
  private Path writeTokens() {
    try {
      Path file = Files.createTempFile("bench-api-tokens", ".txt");
      started.add(() -> Files.deleteIfExists(file));
      List<String> lines = new ArrayList<>();
      for (int i = 0; i < API_TOKENS; i++) {
        String token = Tokens.mint();
        apiTokens.add(token);
        lines.add(TokenFile.line(new Principal("bench-client-" + i, Role.VIEWER), token));
      }
      Files.write(file, lines, StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new BenchException("cannot write the API tokens file: " + e, e);
    }
  }

  @Override
  public Optional<ApiAccess> api() {
    return Optional.of(
        new ApiAccess(URI.create("http://127.0.0.1:" + trigger.apiPort()), apiTokens));
  }

  private void createTopic() {
    KafkaSettings kafka = KafkaSettings.of(ctx.kafkaBootstrap());
    // The retry service's config topic (carillon.config), as the create-topics step makes it.
    TopicAdmin.ensureTopics(kafka, PARTITIONS, (short) 1);
    try (Admin admin = Admin.create(kafka.adminProps())) {
      admin
          .createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted while creating topic " + topic, e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new BenchException("cannot create topic " + topic + ": " + e, e);
    }
  }

  /** The bench's noop handler: records the start, does nothing else. */
  private final class Noop implements AgentTask {
    @Override
    public String type() {
      return HANDLER;
    }

    @Override
    public AgentResult run(AgentContext c) {
      Instant now = ctx.clock().instant();
      String job = burstJobs.get(c.taskId());
      if (job != null) {
        ctx.recorder().started(job, c.scheduledAt(), now);
      } else if (inPlan(c.taskId(), c.scheduledAt())) {
        ctx.recorder().started(c.taskId(), c.scheduledAt(), now);
      } else {
        outsidePlan.increment();
      }
      return AgentResult.of("");
    }
  }

  /** Whether a steady fire lies in its task's planned span (a cron cannot stop after k fires). */
  private boolean inPlan(String taskId, Instant scheduled) {
    SteadyPlan.Task t = steadyTasks.get(taskId);
    if (t == null) {
      // Not a task of this run's plan: record it, so the check reports it as unexpected.
      return true;
    }
    Instant last = t.firstFire().plus(steadyPeriod.multipliedBy(t.fires() - 1L));
    return !scheduled.isBefore(t.firstFire()) && !scheduled.isAfter(last);
  }

  @Override
  public Duration fireResolution() {
    return Duration.ofSeconds(1);
  }

  @Override
  public Instant startBurst(List<String> ids) {
    int n = ids.size();
    Map<String, String> jobs = new HashMap<>();
    for (int i = 0; i < n; i++) {
      String id = ids.get(i);
      jobs.put(TaskDefinition.ID_PATTERN.matcher(id).matches() ? id : "b-" + i, id);
    }
    Instant lead = ctx.clock().instant().plus(BURST_LEAD).plus(BURST_LEAD_PER_TASK.multipliedBy(n));
    Instant due = Instant.ofEpochSecond(lead.getEpochSecond() + 1);
    ZonedDateTime at = due.atZone(ZoneOffset.UTC);
    String cron =
        String.format(
            "%d %d %d %d %d ? %d",
            at.getSecond(),
            at.getMinute(),
            at.getHour(),
            at.getDayOfMonth(),
            at.getMonthValue(),
            at.getYear());
    List<TaskDefinition> defs = new ArrayList<>(n);
    for (String taskId : jobs.keySet()) {
      defs.add(definition(taskId, cron));
    }
    burstJobs = Map.copyOf(jobs);
    burstSize = n;
    burstDue = due;
    Instant t0 = ctx.clock().instant();
    apply(defs);
    Instant applied = ctx.clock().instant();
    awaitCursors(n, due.minusMillis(100), "burst due at " + due + " (" + n + " tasks)");
    log.info(
        "Carillon burst: {} tasks applied in {} ms, all cursors started {} ms later, {} ms before T",
        n,
        Duration.between(t0, applied).toMillis(),
        Duration.between(applied, ctx.clock().instant()).toMillis(),
        Duration.between(ctx.clock().instant(), due).toMillis());
    return due;
  }

  @Override
  public void startSteady(SteadyPlan plan) {
    steadyPeriod = plan.period();
    steadyTasks = plan.tasksById();
    List<TaskDefinition> defs = new ArrayList<>(plan.tasks().size());
    for (SteadyPlan.Task t : plan.tasks()) {
      defs.add(definition(t.id(), steadyCron(t.firstFire(), plan.period())));
    }
    apply(defs);
    awaitCursors(
        defs.size(),
        plan.start().minusMillis(100),
        "steady plan starting " + plan.start() + "; pass a longer --lead");
  }

  /**
   * A cron that fires at {@code first} and every {@code period} after it: {@code s/P * * * * ?} for
   * periods that divide a minute, {@code s m/M * * * ?} for whole minutes that divide an hour.
   */
  static String steadyCron(Instant first, Duration period) {
    if (period.toMillis() % 1000 != 0 || first.toEpochMilli() % 1000 != 0) {
      throw new BenchException(
          "Carillon's cron fires on whole seconds; period " + period + " or " + first + " is not");
    }
    long p = period.toSeconds();
    long epoch = first.getEpochSecond();
    if (60 % p == 0) {
      return (epoch % p) + "/" + p + " * * * * ?";
    }
    if (p % 60 == 0 && 3600 % p == 0) {
      long m = p / 60;
      return (epoch % 60) + " " + ((epoch / 60) % m) + "/" + m + " * * * ?";
    }
    throw new BenchException(
        "a period of " + period + " divides neither a minute nor an hour: no cron expresses it");
  }

  private static TaskDefinition definition(String taskId, String cron) {
    return TaskDefinition.builder(taskId)
        .handler(HANDLER)
        .cron(cron, ZoneId.of("UTC"), WindowKind.EVERY_FIRE)
        // The peers run every fire whatever the previous one is doing; under Carillon's default
        // (SKIP) a fire whose previous window is still PENDING would be recorded SKIPPED and
        // counted as a miss whenever the worker lags (seen in CI right after the fault suite).
        .overlap(OverlapPolicy.ALLOW)
        .timeout(TASK_TIMEOUT)
        .build();
  }

  /** {@link TaskStore#applyAll} in chunks on the bench's connections (not measured). */
  private void apply(List<TaskDefinition> defs) {
    TaskStore store = new TaskStore(db.dsl());
    ExecutorService pool = Executors.newFixedThreadPool(BENCH_POOL);
    try {
      List<Future<?>> all = new ArrayList<>();
      for (int i = 0; i < defs.size(); i += APPLY_CHUNK) {
        List<TaskDefinition> chunk = defs.subList(i, Math.min(defs.size(), i + APPLY_CHUNK));
        all.add(pool.submit(() -> store.applyAll(chunk)));
      }
      for (Future<?> f : all) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchException("interrupted while creating Carillon tasks", e);
    } catch (ExecutionException e) {
      throw new BenchException("cannot create Carillon tasks: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Waits until a trigger tick has started the cursor of every task (their fires count then). */
  private void awaitCursors(int n, Instant deadline, String what) {
    long seen;
    do {
      seen = count("SELECT count(*) FROM trigger_cursor");
      if (seen >= n) {
        return;
      }
      LockSupport.parkNanos(CHECK_EVERY.toNanos());
    } while (ctx.clock().instant().isBefore(deadline));
    throw new BenchException(
        "Carillon's trigger had started "
            + seen
            + " of "
            + n
            + " task cursors when the lead ran out ("
            + what
            + ")");
  }

  private void await(BooleanSupplier done, Instant deadline, String what) {
    while (!done.getAsBoolean()) {
      if (!ctx.clock().instant().isBefore(deadline)) {
        throw new BenchException("Carillon: no " + what + " within " + START_TIMEOUT);
      }
      LockSupport.parkNanos(CHECK_EVERY.toNanos());
    }
  }

  @Override
  public long outstanding() {
    return burstSize - count("SELECT count(*) FROM task_instance WHERE status = 'SUCCESS'");
  }

  private long count(String sql) {
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new BenchException("cannot count Carillon rows: " + e.getMessage(), e);
    }
  }

  @Override
  public List<Stage> burstStages() {
    Instant due = burstDue;
    if (due == null) {
      return List.of();
    }
    String sql =
        "SELECT count(*), min(created_at), max(created_at), count(dispatched_at),"
            + " max(dispatched_at), max(started_at), min(started_at), max(finished_at)"
            + " FROM task_instance WHERE status = 'SUCCESS'";
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      long n = rs.getLong(1);
      if (n == 0) {
        return List.of();
      }
      Instant firstCreated = instant(rs, 2);
      long stamped = rs.getLong(4);
      List<Stage> stages = new ArrayList<>();
      add(stages, "tick insert", n, due, instant(rs, 3));
      if (stamped > 0) {
        add(stages, "publish", stamped, firstCreated, instant(rs, 5));
      }
      add(stages, "claim", n, firstCreated, instant(rs, 6));
      add(stages, "complete", n, instant(rs, 7), instant(rs, 8));
      return stages;
    } catch (SQLException e) {
      throw new BenchException("cannot read Carillon's stage timestamps: " + e.getMessage(), e);
    }
  }

  private static void add(List<Stage> stages, String name, long n, Instant from, Instant to) {
    if (from != null && to != null && to.isAfter(from)) {
      stages.add(new Stage(name, n, Duration.between(from, to)));
    }
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  /** Fires of the steady crons outside their planned spans (run, not recorded). */
  long outsidePlan() {
    return outsidePlan.sum();
  }

  @Override
  public void close() {
    if (!steadyTasks.isEmpty()) {
      logSteadyStages();
    }
    closeAll();
  }

  /**
   * Where a steady run's fire lag went, from the rows: the tick's transaction start ({@code
   * created_at}), the claim's ({@code started_at}) and the dispatch stamp, each against {@code
   * scheduled_at}. Logged, not reported: the handler's start is the measured end.
   */
  private void logSteadyStages() {
    String sql =
        "SELECT percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM"
            + " created_at - scheduled_at) * 1000),"
            + " percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM"
            + " started_at - scheduled_at) * 1000),"
            + " percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM"
            + " started_at - created_at) * 1000), count(*)"
            + " FROM task_instance WHERE started_at IS NOT NULL";
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      log.info(
          "Carillon steady stages over {} instances, ms from scheduled_at (p50, p99): tick"
              + " transaction {}, claim {}; claim after the tick's transaction {}",
          rs.getLong(4),
          rs.getString(1),
          rs.getString(2),
          rs.getString(3));
    } catch (SQLException e) {
      log.warn("cannot read Carillon's steady stages: {}", e.getMessage());
    }
    String dump = System.getProperty("carillon.bench.fires-file");
    if (dump != null) {
      dumpFires(java.nio.file.Path.of(dump));
    }
  }

  /**
   * Every planned fire's times, one line each (scheduled, created, claimed, handler start, in ms
   * from scheduled_at), to {@code file}: where a steady run's tail went, fire by fire.
   */
  private void dumpFires(Path file) {
    Map<FireKey, Recorder.Starts> fires = ctx.recorder().fires();
    String sql =
        "SELECT task_id, scheduled_at, created_at, started_at FROM task_instance"
            + " WHERE started_at IS NOT NULL";
    List<String> lines = new ArrayList<>();
    lines.add("scheduled\tcreated_ms\tclaimed_ms\tstarted_ms");
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        Instant scheduled = instant(rs, 2);
        Recorder.Starts st = fires.get(FireKey.of(rs.getString(1), scheduled));
        if (st == null) {
          continue;
        }
        lines.add(
            scheduled
                + "\t"
                + millis(scheduled, instant(rs, 3))
                + "\t"
                + millis(scheduled, instant(rs, 4))
                + "\t"
                + millis(scheduled, st.first()));
      }
      Files.write(file, lines, StandardCharsets.UTF_8);
      log.info("{} fires written to {}", lines.size() - 1, file);
    } catch (SQLException | IOException e) {
      log.warn("cannot write the fires to {}: {}", file, e.toString());
    }
  }

  private static String millis(Instant from, Instant to) {
    return String.format(java.util.Locale.ROOT, "%.3f", Duration.between(from, to).toNanos() / 1e6);
  }

  private void closeAll() {
    // Trigger first (no new instances), then the worker (drains), the retry service, the pool.
    for (AutoCloseable c : started) {
      try {
        c.close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
      }
    }
    started.clear();
  }
}
