package dev.carillon.bench.history;

import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.TaskStore;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.jooq.DSLContext;

/**
 * Writes a month of finished instances straight into the live tables, as the services would have
 * left them: one statement per day for the instances (in time order, so ids and times grow together
 * as they do in production), one for their events. Per instance: CREATED, PENDING to RUNNING and
 * RUNNING to its end (SKIPPED goes from PENDING), and for one in a hundred a coalesced "window
 * exists" decision standing for 8,640 (a DAILY task with a 10-second cron). One in a thousand is
 * DEAD (retries used up, alert sent), one in 97 SKIPPED, the rest SUCCESS. Nothing is due: the
 * scanners find the few RUNNING and RETRY_WAIT rows' deadlines a day away.
 */
final class HistorySeed {
  /** A coalesced decision row stands for this many decisions. */
  static final int DECISION_REPEATS = 8_640;

  private static final String INSTANCES =
      "insert into task_instance (task_id, window_key, window_start, window_end, scheduled_at,"
          + " status, attempt, retry_count, max_retry, timeout_ms, worker_id, origin, fail_reason,"
          + " started_at, finished_at, dispatched_at, alerted_at, created_at, updated_at)"
          + " select 'hist-' || lpad((n % ?)::text, 5, '0'), 'w' || n, s,"
          + " s + interval '15 minutes', s,"
          + " case when n % 1000 = 7 then 'DEAD' when n % 97 = 0 then 'SKIPPED' else 'SUCCESS'"
          + " end,"
          + " case when n % 1000 = 7 then 4 when n % 97 = 0 then 0 else 1 end,"
          + " case when n % 1000 = 7 then 3 else 0 end, 3, 600000, 'worker-' || (n % 8),"
          + " 'SCHEDULE',"
          + " case when n % 1000 = 7 then 'retries used up (3 of 3); last failure: HTTP 503 from"
          + " the model' end,"
          + " case when n % 97 = 0 and n % 1000 <> 7 then null else s + interval '1 second' end,"
          + " s + interval '3 seconds', s + interval '5 milliseconds',"
          + " case when n % 1000 = 7 then s + interval '4 seconds' end, s,"
          + " s + interval '3 seconds'"
          + " from (select ?::bigint + g as n,"
          + " ?::timestamptz + (g - 1) * ? * interval '1 millisecond' as s"
          + " from generate_series(1, ?) g) x";

  private static final String EVENTS =
      "insert into instance_event (instance_id, task_id, window_key, kind, from_status, to_status,"
          + " attempt, actor, reason, created_at, repeats, last_at)"
          + " select i.id, i.task_id, i.window_key, e.kind,"
          + " case when i.status = 'SKIPPED' and e.o = 3 then 'PENDING' else e.f end,"
          + " case when e.kind = 'TRANSITION' and e.t is null then i.status else e.t end,"
          + " case when e.kind = 'DECISION' then null else i.attempt end,"
          + " coalesce(e.actor, i.worker_id),"
          + " case when e.o = 3 then coalesce(i.fail_reason, 'done') else e.r end,"
          + " i.scheduled_at + e.o * interval '1 second', e.rep,"
          + " case when e.rep > 1 then i.scheduled_at + interval '1 day' end"
          + " from task_instance i cross join (values"
          + " ('CREATED'::varchar, null::varchar, 'PENDING'::varchar, 'trigger'::varchar,"
          + " null::text, 0, 1),"
          + " ('TRANSITION', 'PENDING', 'RUNNING', null, null, 1, 1),"
          + " ('TRANSITION', 'RUNNING', null, null, null, 3, 1),"
          + " ('DECISION', null, null, 'trigger', 'window exists, status SUCCESS', 4, ?))"
          + " as e(kind, f, t, actor, r, o, rep)"
          + " where i.id > ? and i.id <= ?"
          + " and (e.kind <> 'DECISION' or i.id % 100 = 1)"
          + " and not (i.status = 'SKIPPED' and e.o = 1)";

  private final DSLContext dsl;
  private final HistoryOptions options;
  private final Instant now;

  /**
   * @param now the seed's present: the last day ends here, the backlog lies before {@link
   *     #retention()} of it
   */
  HistorySeed(DSLContext dsl, HistoryOptions options, Instant now) {
    this.dsl = dsl;
    this.options = options;
    this.now = now;
  }

  /**
   * The archiver's retention for this seed: the seeded days and six hours more, so that no seeded
   * day ages past it while the bench runs and only the backlog is due.
   */
  Duration retention() {
    return Duration.ofDays(options.days()).plusHours(6);
  }

  /** The tasks, one definition each (a 15-minute cron; no trigger runs). */
  void tasks() {
    List<TaskDefinition> defs = new ArrayList<>();
    for (int t = 0; t < options.tasks(); t++) {
      defs.add(
          TaskDefinition.builder(taskId(t))
              .handler("noop")
              .cron("0 */15 * * * ?", ZoneId.of("Europe/Berlin"), WindowKind.EVERY_FIRE)
              .build());
      if (defs.size() == 10_000) {
        new TaskStore(dsl).applyAll(defs);
        defs.clear();
      }
    }
    if (!defs.isEmpty()) {
      new TaskStore(dsl).applyAll(defs);
    }
  }

  static String taskId(long n) {
    return String.format("hist-%05d", n);
  }

  /**
   * Day {@code day} (0 the oldest) with its events.
   *
   * @return the ids it took, first and last
   */
  IdRange day(int day) {
    Instant start = now.minus(Duration.ofDays(options.days() - (long) day));
    return instances(
        (long) day * options.perDay(), start, 86_400_000L / options.perDay(), options.perDay());
  }

  /** The backlog: finished instances a day older than the retention, 100 ms apart. */
  IdRange backlog() {
    Instant start =
        now.minus(retention())
            .minus(Duration.ofDays(1))
            .minus(Duration.ofMillis(100L * options.backlog()));
    return instances((long) options.days() * options.perDay(), start, 100, options.backlog());
  }

  private IdRange instances(long firstN, Instant start, long spacingMs, int count) {
    long before = maxId();
    dsl.execute(INSTANCES, options.tasks(), firstN, utc(start), spacingMs, count);
    long after = maxId();
    dsl.execute(EVENTS, DECISION_REPEATS, before, after);
    return new IdRange(before + 1, after);
  }

  /** A few live rows in every scanned status, none of them due for a day. */
  void liveRows() {
    dsl.execute(
        "insert into task_instance (task_id, window_key, window_start, window_end, scheduled_at,"
            + " status, attempt, max_retry, timeout_ms, worker_id, origin, lease_until,"
            + " next_attempt_at, started_at, dispatched_at)"
            + " select 'hist-' || lpad(g::text, 5, '0'), 'live-' || g, ?::timestamptz,"
            + " ?::timestamptz, ?::timestamptz,"
            + " case when g % 2 = 0 then 'RUNNING' else 'RETRY_WAIT' end, 1, 3, 86400000,"
            + " 'worker-1', 'SCHEDULE',"
            + " case when g % 2 = 0 then ?::timestamptz + interval '1 day' end,"
            + " case when g % 2 = 1 then ?::timestamptz + interval '1 day' end,"
            + " ?::timestamptz, ?::timestamptz"
            + " from generate_series(0, 39) g",
        utc(now), utc(now), utc(now), utc(now), utc(now), utc(now), utc(now));
  }

  private static OffsetDateTime utc(Instant i) {
    return i.atOffset(ZoneOffset.UTC);
  }

  private long maxId() {
    return dsl.fetchOne("select coalesce(max(id), 0) from task_instance").get(0, Long.class);
  }

  /** Ids {@code first} to {@code last}, both included. */
  record IdRange(long first, long last) {
    long size() {
      return last - first + 1;
    }
  }
}
