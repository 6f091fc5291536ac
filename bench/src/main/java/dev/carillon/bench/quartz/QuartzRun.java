package dev.carillon.bench.quartz;

import com.zaxxer.hikari.HikariDataSource;
import dev.carillon.bench.BenchException;
import dev.carillon.bench.Pools;
import dev.carillon.bench.Recorder;
import dev.carillon.bench.RunContext;
import dev.carillon.bench.SchedulerUnderTest;
import dev.carillon.bench.SteadyPlan;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.utils.ConnectionProvider;
import org.quartz.utils.DBConnectionManager;

/** One run of Quartz on a fresh database. */
final class QuartzRun implements SchedulerUnderTest {
  static final String DDL_RESOURCE = "/org/quartz/impl/jdbcjobstore/tables_postgres.sql";
  static final String BURST_GROUP = "burst";
  static final String STEADY_GROUP = "steady";

  /** The noop job: records its start. Quartz makes one per execution through our job factory. */
  public static final class RecordingJob implements Job {
    private final Recorder recorder;
    private final Clock clock;

    RecordingJob(Recorder recorder, Clock clock) {
      this.recorder = recorder;
      this.clock = clock;
    }

    @Override
    public void execute(JobExecutionContext context) {
      recorder.started(
          context.getTrigger().getKey().getName(),
          context.getScheduledFireTime().toInstant(),
          clock.instant());
    }
  }

  private final RunContext ctx;
  private final HikariDataSource ds;
  private final String name;
  private final Scheduler scheduler;

  QuartzRun(RunContext ctx) {
    this.ctx = ctx;
    this.ds = Pools.open(ctx, "quartz");
    this.name = "bench-" + ctx.runId();
    try {
      createTables();
      // Quartz looks data sources up by name in this JVM-wide registry; registering the bench's
      // own pool keeps pool settings identical across systems.
      DBConnectionManager.getInstance().addConnectionProvider(name, new PoolProvider(ds));
      StdSchedulerFactory factory = new StdSchedulerFactory(properties());
      scheduler = factory.getScheduler();
      scheduler.setJobFactory((bundle, s) -> new RecordingJob(ctx.recorder(), ctx.clock()));
      scheduler.start();
    } catch (SchedulerException | RuntimeException e) {
      ds.close();
      throw new BenchException("cannot start Quartz: " + e.getMessage(), e);
    }
  }

  private Properties properties() {
    Properties p = new Properties();
    p.setProperty("org.quartz.scheduler.instanceName", name);
    p.setProperty("org.quartz.scheduler.instanceId", "AUTO");
    p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
    p.setProperty(
        "org.quartz.scheduler.idleWaitTime",
        Long.toString(QuartzSystem.idleWait(ctx.pollInterval()).toMillis()));
    p.setProperty(
        "org.quartz.scheduler.batchTriggerAcquisitionMaxCount", Integer.toString(ctx.threads()));
    p.setProperty("org.quartz.scheduler.batchTriggerAcquisitionFireAheadTimeWindow", "0");
    p.setProperty("org.quartz.threadPool.class", "org.quartz.simpl.SimpleThreadPool");
    p.setProperty("org.quartz.threadPool.threadCount", Integer.toString(ctx.threads()));
    p.setProperty("org.quartz.threadPool.threadNamePrefix", name + "-worker");
    p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
    p.setProperty(
        "org.quartz.jobStore.driverDelegateClass",
        "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
    p.setProperty("org.quartz.jobStore.dataSource", name);
    p.setProperty("org.quartz.jobStore.tablePrefix", "QRTZ_");
    p.setProperty("org.quartz.jobStore.isClustered", "true");
    p.setProperty("org.quartz.jobStore.clusterCheckinInterval", "7500");
    p.setProperty("org.quartz.jobStore.acquireTriggersWithinLock", "true");
    p.setProperty(
        "org.quartz.jobStore.misfireThreshold",
        Long.toString(QuartzSystem.MISFIRE_THRESHOLD.toMillis()));
    return p;
  }

  private void createTables() {
    String ddl;
    try (InputStream in = Scheduler.class.getResourceAsStream(DDL_RESOURCE)) {
      if (in == null) {
        throw new BenchException("Quartz jar has no " + DDL_RESOURCE);
      }
      ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new BenchException("cannot read " + DDL_RESOURCE, e);
    }
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      // The script ends with COMMIT, which autocommit makes a harmless no-op warning.
      s.execute(ddl);
    } catch (SQLException e) {
      throw new BenchException("cannot create Quartz tables: " + e.getMessage(), e);
    }
  }

  @Override
  public Instant startBurst(List<String> ids) {
    try {
      scheduler.standby();
      JobDetail job =
          JobBuilder.newJob(RecordingJob.class)
              .withIdentity("noop", BURST_GROUP)
              .storeDurably()
              .build();
      Date created = Date.from(ctx.clock().instant());
      Set<Trigger> triggers = new HashSet<>();
      for (String id : ids) {
        triggers.add(
            TriggerBuilder.newTrigger()
                .withIdentity(id, BURST_GROUP)
                .forJob(job)
                .startAt(created)
                .withSchedule(
                    SimpleScheduleBuilder.simpleSchedule().withMisfireHandlingInstructionFireNow())
                .build());
      }
      Map<JobDetail, Set<? extends Trigger>> jobs = new HashMap<>();
      jobs.put(job, triggers);
      scheduler.scheduleJobs(jobs, false);
      Instant due = ctx.clock().instant();
      scheduler.start();
      return due;
    } catch (SchedulerException e) {
      throw new BenchException("Quartz burst setup failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void startSteady(SteadyPlan plan) {
    Map<JobDetail, Set<? extends Trigger>> jobs = new HashMap<>();
    for (SteadyPlan.Task t : plan.tasks()) {
      JobDetail job =
          JobBuilder.newJob(RecordingJob.class).withIdentity(t.id(), STEADY_GROUP).build();
      Trigger trigger =
          TriggerBuilder.newTrigger()
              .withIdentity(t.id(), STEADY_GROUP)
              .forJob(job)
              .startAt(Date.from(t.firstFire()))
              .withSchedule(
                  SimpleScheduleBuilder.simpleSchedule()
                      .withIntervalInMilliseconds(plan.period().toMillis())
                      .withRepeatCount(t.fires() - 1)
                      .withMisfireHandlingInstructionFireNow())
              .build();
      jobs.put(job, Set.of(trigger));
    }
    try {
      scheduler.scheduleJobs(jobs, false);
    } catch (SchedulerException e) {
      throw new BenchException("Quartz steady setup failed: " + e.getMessage(), e);
    }
  }

  @Override
  public long outstanding() {
    try (Connection c = ds.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT count(*) FROM qrtz_triggers WHERE sched_name = ? AND trigger_group = ?")) {
      s.setString(1, name);
      s.setString(2, BURST_GROUP);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new BenchException("cannot count Quartz triggers: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    try {
      scheduler.shutdown(true);
    } catch (SchedulerException e) {
      throw new BenchException("Quartz did not shut down: " + e.getMessage(), e);
    } finally {
      ds.close();
    }
  }

  /** Hands Quartz connections from the bench's pool; the pool's owner closes it. */
  private record PoolProvider(HikariDataSource ds) implements ConnectionProvider {
    @Override
    public Connection getConnection() throws SQLException {
      return ds.getConnection();
    }

    @Override
    public void shutdown() {
      // The run closes the pool after Quartz has stopped.
    }

    @Override
    public void initialize() {}
  }
}
