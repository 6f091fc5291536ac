package dev.carillon.bench.quartz;

import dev.carillon.bench.BenchOptions;
import dev.carillon.bench.BenchSystem;
import dev.carillon.bench.RunContext;
import dev.carillon.bench.SchedulerUnderTest;
import dev.carillon.bench.Versions;
import java.time.Duration;
import java.util.List;

/** Quartz with its JDBC job store, clustered, on PostgreSQL. */
public final class QuartzSystem implements BenchSystem {
  /**
   * Quartz refuses an idle wait under one second. It only matters when no trigger is known: a
   * scheduler that knows its next trigger sleeps until exactly then, and scheduling wakes it.
   */
  static final Duration MIN_IDLE_WAIT = Duration.ofSeconds(1);

  /**
   * Far above any lag we expect, so that a late trigger still fires at its own scheduled time and
   * shows up as lag, instead of going through misfire handling (20 at a time by default).
   */
  static final Duration MISFIRE_THRESHOLD = Duration.ofMinutes(10);

  static Duration idleWait(Duration pollInterval) {
    return pollInterval.compareTo(MIN_IDLE_WAIT) < 0 ? MIN_IDLE_WAIT : pollInterval;
  }

  @Override
  public String id() {
    return "quartz";
  }

  @Override
  public String displayName() {
    return "Quartz";
  }

  @Override
  public String version() {
    return "Quartz " + Versions.of("org.quartz-scheduler", "quartz");
  }

  @Override
  public List<String> settings(BenchOptions o) {
    return List.of(
        "`JobStoreTX` with `PostgreSQLDelegate`, `isClustered=true` (row locks in `QRTZ_LOCKS`),"
            + " `acquireTriggersWithinLock=true`, tables from the jar's"
            + " `org/quartz/impl/jdbcjobstore/tables_postgres.sql`",
        "`SimpleThreadPool` with "
            + o.threads()
            + " threads; `batchTriggerAcquisitionMaxCount="
            + o.threads()
            + "` (default 1: one trigger per locked round trip);"
            + " `batchTriggerAcquisitionFireAheadTimeWindow=0` (no early fires)",
        "`idleWaitTime="
            + idleWait(o.pollInterval()).toMillis()
            + " ms` (Quartz's minimum is 1 s; default 30 s), `clusterCheckinInterval=7500 ms`"
            + " (default), `misfireThreshold="
            + MISFIRE_THRESHOLD.toMillis()
            + " ms` (late fires run at their own time and count as lag)",
        "connections from the bench's HikariCP pool of "
            + o.poolSize()
            + " (threads + 2, as Quartz recommends) through a `ConnectionProvider`",
        "burst: one durable job, one `SimpleTrigger` per instance, stored in one `scheduleJobs`"
            + " call while the scheduler is in standby; due instant = `start()`; SUCCESS ="
            + " trigger row deleted after the job returned",
        "steady: one job per planned task with a repeating `SimpleTrigger` (start = first fire,"
            + " fixed interval, repeat count), misfire instruction FIRE_NOW");
  }

  @Override
  public SchedulerUnderTest open(RunContext ctx) {
    return new QuartzRun(ctx);
  }
}
