package dev.carillon.bench.dbscheduler;

import dev.carillon.bench.BenchOptions;
import dev.carillon.bench.BenchSystem;
import dev.carillon.bench.RunContext;
import dev.carillon.bench.SchedulerUnderTest;
import dev.carillon.bench.Versions;
import java.util.List;

/** db-scheduler (com.github.kagkarlsson) in its fastest PostgreSQL polling mode. */
public final class DbSchedulerSystem implements BenchSystem {
  /** Fetch up to this fraction of the threads per poll... */
  static final double LOWER_LIMIT_FRACTION = 0.5;

  /** ...and poll again as soon as fewer than this fraction are busy (db-scheduler's README). */
  static final double UPPER_LIMIT_FRACTION = 1.0;

  @Override
  public String id() {
    return "dbscheduler";
  }

  @Override
  public String displayName() {
    return "db-scheduler";
  }

  @Override
  public String version() {
    return "db-scheduler " + Versions.of("com.github.kagkarlsson", "db-scheduler");
  }

  @Override
  public List<String> settings(BenchOptions o) {
    return List.of(
        "polling strategy `lock-and-fetch` (`pollUsingLockAndFetch("
            + LOWER_LIMIT_FRACTION
            + ", "
            + UPPER_LIMIT_FRACTION
            + ")`: one `UPDATE ... WHERE ... IN (SELECT ... FOR UPDATE SKIP LOCKED LIMIT "
            + Math.round(o.threads() * UPPER_LIMIT_FRACTION)
            + ") RETURNING`), the mode its README recommends for high throughput on PostgreSQL",
        "executor threads "
            + o.threads()
            + "; polling interval "
            + o.pollInterval().toMillis()
            + " ms (default 10 s); HikariCP pool "
            + o.poolSize(),
        "table `scheduled_tasks` as in db-scheduler's PostgreSQL DDL (primary key, execution_time,"
            + " last_heartbeat and priority indexes)",
        "burst: one one-time task, instances inserted with `scheduleBatch` while the scheduler is"
            + " paused; due instant = `resume()` + `triggerCheckForDueExecutions()`; SUCCESS ="
            + " row deleted (the one-time task's completion)",
        "steady: one custom task, one instance per planned task; the completion handler"
            + " reschedules to the next planned instant (fixed rate, computed from the first fire)"
            + " or removes the row after the last");
  }

  @Override
  public SchedulerUnderTest open(RunContext ctx) {
    return new DbSchedulerRun(ctx);
  }
}
