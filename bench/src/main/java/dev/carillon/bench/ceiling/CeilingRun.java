package dev.carillon.bench.ceiling;

import com.zaxxer.hikari.HikariDataSource;
import dev.carillon.bench.BenchException;
import dev.carillon.bench.Pools;
import dev.carillon.bench.RunContext;
import dev.carillon.bench.SchedulerUnderTest;
import dev.carillon.bench.Stage;
import dev.carillon.bench.SteadyPlan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.flywaydb.core.Flyway;

/** One run of the ceiling on a fresh database. */
final class CeilingRun implements SchedulerUnderTest {
  static final String INSERT =
      "INSERT INTO task_instance (task_id, window_key, window_start, window_end, scheduled_at,"
          + " status, timeout_ms, origin) VALUES (?, ?, ?, ?, ?, 'PENDING', 60000, 'SCHEDULE')"
          + " ON CONFLICT (task_id, window_key) DO NOTHING RETURNING id";
  static final String CLAIM =
      "UPDATE task_instance SET status = 'RUNNING', attempt = attempt + 1, lease_until = ?,"
          + " worker_id = ?, started_at = ?, updated_at = ? WHERE id = ? AND status = 'PENDING'"
          + " RETURNING attempt";
  static final String COMPLETE =
      "UPDATE task_instance SET status = 'SUCCESS', finished_at = ?, lease_until = NULL,"
          + " updated_at = ? WHERE id = ? AND status = 'RUNNING' AND attempt = ?";
  private static final String DEFINE =
      "INSERT INTO task_definition (task_id, handler, catchup_ms, timeout_ms, retry_policy)"
          + " VALUES (?, 'noop', 0, 60000, '{\"kind\":\"NONE\"}') ON CONFLICT DO NOTHING";
  // Burst instances are spread over this many tasks, as a burst of real work would be.
  private static final int BURST_TASKS = 100;
  private static final Duration LEASE = Duration.ofMinutes(1);

  private final RunContext ctx;
  private final HikariDataSource ds;
  private final ExecutorService workers;
  private final AtomicLong casLosses = new AtomicLong();
  private volatile Thread driver;
  private volatile int burstSize;
  private volatile List<Stage> stages = List.of();
  private volatile Throwable failure;

  CeilingRun(RunContext ctx) {
    this.ctx = ctx;
    this.ds = Pools.open(ctx, "ceiling");
    try {
      // Carillon's own schema (the roles' repeatable migration needs its placeholder).
      Flyway.configure()
          .dataSource(ds)
          .locations("classpath:db/migration")
          .placeholders(
              java.util.Map.of("rolePrefix", dev.carillon.store.Schema.DEFAULT_ROLE_PREFIX))
          .load()
          .migrate();
    } catch (RuntimeException e) {
      ds.close();
      throw e;
    }
    AtomicInteger n = new AtomicInteger();
    this.workers =
        Executors.newFixedThreadPool(
            ctx.threads(), r -> new Thread(r, "ceiling-worker-" + n.incrementAndGet()));
  }

  @Override
  public Instant startBurst(List<String> ids) {
    int n = ids.size();
    burstSize = n;
    List<String> tasks = new ArrayList<>();
    for (int t = 0; t < Math.min(n, BURST_TASKS); t++) {
      tasks.add(String.format("burst-%03d", t));
    }
    define(tasks);
    Instant due = ctx.clock().instant();
    long[] rowIds = new long[n];
    driver =
        startDriver(
            "ceiling-burst",
            () -> {
              AtomicInteger next = new AtomicInteger();
              Instant t0 = ctx.clock().instant();
              runOnAllWorkers(
                  () -> {
                    try (Connection c = ds.getConnection();
                        PreparedStatement insert = c.prepareStatement(INSERT)) {
                      for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        rowIds[i] = insert(insert, tasks.get(i % tasks.size()), ids.get(i), due);
                      }
                    }
                  });
              Instant t1 = ctx.clock().instant();
              AtomicInteger nextRun = new AtomicInteger();
              runOnAllWorkers(
                  () -> {
                    try (Connection c = ds.getConnection();
                        PreparedStatement claim = c.prepareStatement(CLAIM);
                        PreparedStatement complete = c.prepareStatement(COMPLETE)) {
                      for (int i = nextRun.getAndIncrement();
                          i < n;
                          i = nextRun.getAndIncrement()) {
                        execute(claim, complete, rowIds[i], ids.get(i), due);
                      }
                    }
                  });
              Instant t2 = ctx.clock().instant();
              stages =
                  List.of(
                      new Stage("insert", n, Duration.between(t0, t1)),
                      new Stage("claim+complete", n, Duration.between(t1, t2)));
            });
    return due;
  }

  @Override
  public void startSteady(SteadyPlan plan) {
    define(plan.tasks().stream().map(SteadyPlan.Task::id).toList());
    List<Fire> fires = new ArrayList<>();
    for (SteadyPlan.Task t : plan.tasks()) {
      for (int k = 0; k < t.fires(); k++) {
        fires.add(new Fire(t.id(), t.firstFire().plus(plan.period().multipliedBy(k))));
      }
    }
    fires.sort(Comparator.comparing(Fire::scheduled));
    // The timer stands in for a trigger: it hands each fire to a worker at its instant.
    driver =
        startDriver(
            "ceiling-timer",
            () -> {
              for (Fire f : fires) {
                long wait = Duration.between(ctx.clock().instant(), f.scheduled()).toNanos();
                while (wait > 0) {
                  if (Thread.currentThread().isInterrupted()) {
                    return;
                  }
                  LockSupport.parkNanos(wait);
                  wait = Duration.between(ctx.clock().instant(), f.scheduled()).toNanos();
                }
                workers.execute(() -> fire(f));
              }
            });
  }

  private record Fire(String taskId, Instant scheduled) {}

  private void fire(Fire f) {
    try (Connection c = ds.getConnection();
        PreparedStatement insert = c.prepareStatement(INSERT);
        PreparedStatement claim = c.prepareStatement(CLAIM);
        PreparedStatement complete = c.prepareStatement(COMPLETE)) {
      long id =
          insert(insert, f.taskId(), Long.toString(f.scheduled().toEpochMilli()), f.scheduled());
      if (id > 0) {
        execute(claim, complete, id, f.taskId(), f.scheduled());
      }
    } catch (SQLException e) {
      throw new BenchException("ceiling fire " + f + " failed: " + e.getMessage(), e);
    }
  }

  /** Inserts one PENDING instance; returns its id, or 0 if the window already existed. */
  private long insert(PreparedStatement insert, String taskId, String windowKey, Instant scheduled)
      throws SQLException {
    OffsetDateTime at = utc(scheduled);
    insert.setString(1, taskId);
    insert.setString(2, windowKey);
    insert.setObject(3, at);
    insert.setObject(4, at);
    insert.setObject(5, at);
    try (ResultSet rs = insert.executeQuery()) {
      if (rs.next()) {
        return rs.getLong(1);
      }
      casLosses.incrementAndGet();
      return 0;
    }
  }

  /** PENDING → RUNNING, the noop handler, RUNNING → SUCCESS fenced by the attempt. */
  private void execute(
      PreparedStatement claim, PreparedStatement complete, long id, String jobId, Instant scheduled)
      throws SQLException {
    Instant now = ctx.clock().instant();
    claim.setObject(1, utc(now.plus(LEASE)));
    claim.setString(2, Thread.currentThread().getName());
    claim.setObject(3, utc(now));
    claim.setObject(4, utc(now));
    claim.setLong(5, id);
    int attempt;
    try (ResultSet rs = claim.executeQuery()) {
      if (!rs.next()) {
        casLosses.incrementAndGet();
        return;
      }
      attempt = rs.getInt(1);
    }
    ctx.recorder().started(jobId, scheduled, ctx.clock().instant());
    Instant done = ctx.clock().instant();
    complete.setObject(1, utc(done));
    complete.setObject(2, utc(done));
    complete.setLong(3, id);
    complete.setInt(4, attempt);
    if (complete.executeUpdate() != 1) {
      casLosses.incrementAndGet();
    }
  }

  private void define(List<String> taskIds) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(DEFINE)) {
      for (String t : taskIds) {
        ps.setString(1, t);
        ps.addBatch();
      }
      ps.executeBatch();
    } catch (SQLException e) {
      throw new BenchException("cannot define ceiling tasks: " + e.getMessage(), e);
    }
  }

  @Override
  public long outstanding() {
    if (failure != null) {
      throw new BenchException("ceiling failed: " + failure, failure);
    }
    if (casLosses.get() > 0) {
      throw new BenchException(casLosses.get() + " ceiling CAS statements updated no row");
    }
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT count(*) FROM task_instance WHERE status = 'SUCCESS'")) {
      rs.next();
      return burstSize - rs.getLong(1);
    } catch (SQLException e) {
      throw new BenchException("cannot count ceiling instances: " + e.getMessage(), e);
    }
  }

  @Override
  public List<Stage> burstStages() {
    return stages;
  }

  private interface SqlWork {
    void run() throws SQLException;
  }

  private void runOnAllWorkers(SqlWork work) {
    List<Future<?>> all = new ArrayList<>();
    for (int t = 0; t < ctx.threads(); t++) {
      all.add(
          workers.submit(
              () -> {
                work.run();
                return null;
              }));
    }
    for (Future<?> f : all) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BenchException("ceiling interrupted", e);
      } catch (java.util.concurrent.ExecutionException e) {
        throw new BenchException("ceiling worker failed: " + e.getCause(), e.getCause());
      }
    }
  }

  private Thread startDriver(String name, Runnable body) {
    Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (RuntimeException e) {
                failure = e;
                throw e;
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static OffsetDateTime utc(Instant i) {
    return i.atOffset(ZoneOffset.UTC);
  }

  @Override
  public void close() {
    Thread d = driver;
    if (d != null) {
      d.interrupt();
    }
    workers.shutdown();
    try {
      if (!workers.awaitTermination(30, TimeUnit.SECONDS)) {
        workers.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      workers.shutdownNow();
    }
    ds.close();
  }
}
