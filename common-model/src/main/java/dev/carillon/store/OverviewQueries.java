package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.Origin;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The reads behind the console's overview and dead-letter page: instances by status, per hour, the
 * fire lag of recent scheduled windows, and DEAD instances grouped by task and reason. Each is one
 * statement that an index bounds: live statuses through {@code ix_task_instance_live}, DEAD through
 * {@code ix_task_instance_dead_reason} (V22, which holds each DEAD row's reason and id too), time
 * ranges through {@code ix_task_instance_scheduled} (V10), so none reads the whole table.
 *
 * <p>Thread-safe.
 */
public final class OverviewQueries {
  /** Seconds in an hour bucket. */
  private static final long HOUR = 3600;

  /**
   * The hour of {@code scheduled_at} as whole hours since the epoch: independent of the session's
   * time zone, unlike {@code date_trunc} on a {@code timestamptz}.
   */
  private static final Field<Long> HOUR_BUCKET =
      DSL.field(
          "floor(extract(epoch from {0}) / " + HOUR + ")::bigint",
          SQLDataType.BIGINT,
          TASK_INSTANCE.SCHEDULED_AT);

  /** created_at − scheduled_at in milliseconds: how late the trigger created the row. */
  private static final Field<Double> LAG_MS =
      DSL.field(
          "extract(epoch from ({0} - {1})) * 1000",
          SQLDataType.DOUBLE, TASK_INSTANCE.CREATED_AT, TASK_INSTANCE.SCHEDULED_AT);

  private final DSLContext dsl;

  public OverviewQueries(DSLContext dsl) {
    this.dsl = dsl;
  }

  /** Instances per status for the statuses that have not finished ({@link InstanceStatus#LIVE}). */
  public Map<InstanceStatus, Long> liveCounts() {
    Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
    InstanceStatus.LIVE.forEach(s -> counts.put(s, 0L));
    dsl.select(TASK_INSTANCE.STATUS, DSL.count())
        .from(TASK_INSTANCE)
        .where(Sql.statusIn(TASK_INSTANCE.STATUS, InstanceStatus.LIVE))
        .groupBy(TASK_INSTANCE.STATUS)
        .fetch()
        .forEach(r -> counts.put(InstanceStatus.valueOf(r.value1()), (long) r.value2()));
    return counts;
  }

  /** How many instances are DEAD now. */
  public long deadCount() {
    return dsl.fetchCount(TASK_INSTANCE, Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.DEAD));
  }

  /**
   * How many instances of one status were scheduled in one hour.
   *
   * @param hour the hour's first instant (UTC)
   */
  public record HourCount(Instant hour, InstanceStatus status, long count) {}

  /**
   * Instances scheduled in {@code [from, to)}, counted per hour (UTC) and status, oldest hour
   * first.
   */
  public List<HourCount> perHour(Instant from, Instant to) {
    return dsl.select(HOUR_BUCKET, TASK_INSTANCE.STATUS, DSL.count())
        .from(TASK_INSTANCE)
        .where(TASK_INSTANCE.SCHEDULED_AT.ge(from))
        .and(TASK_INSTANCE.SCHEDULED_AT.lt(to))
        .groupBy(HOUR_BUCKET, TASK_INSTANCE.STATUS)
        .orderBy(HOUR_BUCKET, TASK_INSTANCE.STATUS)
        .fetch(
            r ->
                new HourCount(
                    Instant.ofEpochSecond(r.value1() * HOUR),
                    InstanceStatus.valueOf(r.value2()),
                    r.value3()));
  }

  /**
   * The fire lag of scheduled windows: how long after its fire time the trigger created each row.
   *
   * @param windows how many rows it is computed over (0: the durations are zero)
   */
  public record FireLag(long windows, Duration p50, Duration p95, Duration max) {}

  /**
   * The fire lag of the instances the schedule (origin {@code SCHEDULE}, not catch-up or manual)
   * created for fire times in {@code [from, to)}.
   */
  public FireLag fireLag(Instant from, Instant to) {
    var r =
        dsl.select(
                DSL.count(),
                DSL.percentileCont(0.5).withinGroupOrderBy(LAG_MS),
                DSL.percentileCont(0.95).withinGroupOrderBy(LAG_MS),
                DSL.max(LAG_MS))
            .from(TASK_INSTANCE)
            .where(TASK_INSTANCE.SCHEDULED_AT.ge(from))
            .and(TASK_INSTANCE.SCHEDULED_AT.lt(to))
            .and(TASK_INSTANCE.ORIGIN.eq(Origin.SCHEDULE.name()))
            .fetchOne();
    Objects.requireNonNull(r, "an aggregate returns one row");
    return new FireLag(r.value1(), millis(r.value2()), millis(r.value3()), millis(r.value4()));
  }

  private static Duration millis(Number ms) {
    return ms == null
        ? Duration.ZERO
        : Duration.ofMillis(Math.max(0, Math.round(ms.doubleValue())));
  }

  /**
   * DEAD instances of one task with one failure reason.
   *
   * @param reason the instances' {@code fail_reason}, or null when none was recorded
   * @param newestId the id of the latest of them
   */
  public record DeadGroup(
      String taskId,
      String reason,
      long count,
      Instant firstFinishedAt,
      Instant lastFinishedAt,
      long newestId) {}

  /**
   * DEAD instances grouped by task and failure reason, the largest group first.
   *
   * @param taskId only this task's, or null for every task
   * @param limit the most groups returned
   */
  public List<DeadGroup> deadGroups(String taskId, int limit) {
    Condition c = Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.DEAD);
    if (taskId != null) {
      c = c.and(TASK_INSTANCE.TASK_ID.eq(taskId));
    }
    Field<Integer> count = DSL.count();
    return dsl.select(
            TASK_INSTANCE.TASK_ID,
            TASK_INSTANCE.FAIL_REASON,
            count,
            DSL.min(TASK_INSTANCE.FINISHED_AT),
            DSL.max(TASK_INSTANCE.FINISHED_AT),
            DSL.max(TASK_INSTANCE.ID))
        .from(TASK_INSTANCE)
        .where(c)
        .groupBy(TASK_INSTANCE.TASK_ID, TASK_INSTANCE.FAIL_REASON)
        .orderBy(count.desc(), TASK_INSTANCE.TASK_ID, TASK_INSTANCE.FAIL_REASON)
        .limit(limit)
        .fetch(
            r ->
                new DeadGroup(
                    r.value1(), r.value2(), r.value3(), r.value4(), r.value5(), r.value6()));
  }
}
