package dev.carillon.bench.ceiling;

import dev.carillon.bench.BenchOptions;
import dev.carillon.bench.BenchSystem;
import dev.carillon.bench.RunContext;
import dev.carillon.bench.SchedulerUnderTest;
import java.util.List;

/**
 * The reference line: the per-instance SQL a minimal state-machine scheduler cannot avoid (insert
 * with a unique key, CAS to RUNNING, CAS to SUCCESS), one statement per step, autocommit, on
 * Carillon's own {@code task_instance} table. No scheduler built on this table can beat it without
 * batching.
 */
public final class CeilingSystem implements BenchSystem {
  @Override
  public String id() {
    return "ceiling";
  }

  @Override
  public String displayName() {
    return "ceiling (JDBC, unbatched)";
  }

  @Override
  public String version() {
    return "PostgreSQL JDBC " + org.postgresql.util.DriverInfo.DRIVER_VERSION;
  }

  @Override
  public List<String> settings(BenchOptions o) {
    return List.of(
        "table: Carillon's `task_instance` (and a `task_definition` row per task), created by"
            + " Carillon's own Flyway migrations, with all their indexes",
        "per instance: `INSERT ... ON CONFLICT (task_id, window_key) DO NOTHING RETURNING id`;"
            + " `UPDATE ... SET status='RUNNING', attempt=attempt+1, lease_until, worker_id,"
            + " started_at WHERE id=? AND status='PENDING' RETURNING attempt`; `UPDATE ... SET"
            + " status='SUCCESS', finished_at WHERE id=? AND status='RUNNING' AND attempt=?`",
        "autocommit, one statement per step per instance, no batching; "
            + o.threads()
            + " client threads; HikariCP pool "
            + o.poolSize(),
        "burst: stage 1 all threads insert, stage 2 all threads claim, run noop, complete;"
            + " end-to-end counts both (a trigger inserts when the window is due)",
        "steady: one timer thread hands each fire at its instant to the "
            + o.threads()
            + " threads, which insert, claim (job start recorded), complete");
  }

  @Override
  public SchedulerUnderTest open(RunContext ctx) {
    return new CeilingRun(ctx);
  }
}
