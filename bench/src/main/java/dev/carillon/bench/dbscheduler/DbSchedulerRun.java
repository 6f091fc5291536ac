package dev.carillon.bench.dbscheduler;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.SchedulableInstance;
import com.github.kagkarlsson.scheduler.task.SchedulableTaskInstance;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.CustomTask;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import dev.carillon.bench.BenchException;
import dev.carillon.bench.Pools;
import dev.carillon.bench.RunContext;
import dev.carillon.bench.SchedulerUnderTest;
import dev.carillon.bench.SteadyPlan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One run of db-scheduler on a fresh database. */
final class DbSchedulerRun implements SchedulerUnderTest {
  static final String BURST_TASK = "bench-burst";
  static final String STEADY_TASK = "bench-steady";
  // db-scheduler's documented PostgreSQL table (it ships no DDL in its jar).
  static final String DDL =
      """
      CREATE TABLE scheduled_tasks (
        task_name text NOT NULL,
        task_instance text NOT NULL,
        task_data bytea,
        execution_time timestamp with time zone,
        picked boolean NOT NULL,
        picked_by text,
        last_success timestamp with time zone,
        last_failure timestamp with time zone,
        consecutive_failures int,
        last_heartbeat timestamp with time zone,
        version bigint NOT NULL,
        priority smallint,
        state text,
        PRIMARY KEY (task_name, task_instance)
      );
      CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time);
      CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat);
      CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC);
      """;

  private final RunContext ctx;
  private final HikariDataSource ds;
  private final Scheduler scheduler;
  private final OneTimeTask<Void> burst;
  private final CustomTask<Void> steady;
  private volatile SteadyPlan plan;
  private volatile Map<String, SteadyPlan.Task> planTasks = Map.of();

  DbSchedulerRun(RunContext ctx) {
    this.ctx = ctx;
    this.ds = Pools.open(ctx, "dbscheduler");
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(DDL);
    } catch (SQLException e) {
      ds.close();
      throw new BenchException("cannot create db-scheduler table: " + e.getMessage(), e);
    }
    this.burst =
        Tasks.oneTime(BURST_TASK)
            .execute(
                (instance, ec) ->
                    ctx.recorder()
                        .started(
                            instance.getId(),
                            ec.getExecution().executionTime,
                            ctx.clock().instant()));
    this.steady =
        Tasks.custom(STEADY_TASK, Void.class)
            .execute(
                (instance, ec) -> {
                  Instant scheduled = ec.getExecution().executionTime;
                  ctx.recorder().started(instance.getId(), scheduled, ctx.clock().instant());
                  return nextFire(instance.getId(), scheduled);
                });
    this.scheduler =
        Scheduler.create(ds, burst, steady)
            .threads(ctx.threads())
            .pollingInterval(ctx.pollInterval())
            .pollUsingLockAndFetch(
                DbSchedulerSystem.LOWER_LIMIT_FRACTION, DbSchedulerSystem.UPPER_LIMIT_FRACTION)
            .shutdownMaxWait(Duration.ofSeconds(30))
            .build();
    scheduler.start();
  }

  private CompletionHandler<Void> nextFire(String taskId, Instant scheduled) {
    SteadyPlan p = plan;
    SteadyPlan.Task task = planTasks.get(taskId);
    return (complete, ops) -> {
      if (p == null || task == null) {
        ops.remove();
        return;
      }
      p.nextFire(task, scheduled)
          .ifPresentOrElse(next -> ops.reschedule(complete, next), ops::remove);
    };
  }

  @Override
  public Instant startBurst(List<String> ids) {
    scheduler.pause();
    Instant created = ctx.clock().instant();
    List<TaskInstance<?>> instances = new ArrayList<>(ids.size());
    for (String id : ids) {
      instances.add(burst.instance(id));
    }
    scheduler.scheduleBatch(instances, created);
    Instant due = ctx.clock().instant();
    scheduler.resume();
    // Wake the poller now rather than at its next tick: the burst measures throughput.
    scheduler.triggerCheckForDueExecutions();
    return due;
  }

  @Override
  public void startSteady(SteadyPlan p) {
    this.planTasks = p.tasksById();
    this.plan = p;
    List<SchedulableInstance<?>> instances = new ArrayList<>(p.tasks().size());
    for (SteadyPlan.Task t : p.tasks()) {
      instances.add(new SchedulableTaskInstance<>(steady.instance(t.id()), t.firstFire()));
    }
    scheduler.scheduleBatch(instances);
  }

  @Override
  public long outstanding() {
    try (Connection c = ds.getConnection();
        PreparedStatement s =
            c.prepareStatement("SELECT count(*) FROM scheduled_tasks WHERE task_name = ?")) {
      s.setString(1, BURST_TASK);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new BenchException("cannot count db-scheduler executions: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    try {
      scheduler.stop();
    } finally {
      ds.close();
    }
  }
}
