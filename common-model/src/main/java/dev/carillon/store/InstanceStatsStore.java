package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.impl.DSL;

/**
 * How much work waits and how long: the instance gauges the retry leader refreshes on an interval
 * (never per scrape). Two statements: one pass over the live rows (the partial index {@code
 * ix_task_instance_live}) for their counts by status and the oldest waiting times, one count of the
 * DEAD queue ({@code ix_task_instance_dead_reason}, V22). Finished rows other than DEAD are not
 * counted: their number only grows (the counters of the services say how fast).
 *
 * <p>Every age is measured on the database clock. Thread-safe.
 */
public final class InstanceStatsStore {
  private final DSLContext dsl;

  public InstanceStatsStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * What waits, read now.
   *
   * @param counts instances per live status and DEAD (zero included)
   * @param oldestPending how long the longest-waiting PENDING instance has been PENDING (since its
   *     last status change), or empty when none is
   * @param oldestUndispatched the same among PENDING instances never published
   * @param oldestOverdueRetry how far past its {@code next_attempt_at} the most overdue RETRY_WAIT
   *     instance is, or empty when none is due
   */
  public record InstanceStats(
      Map<InstanceStatus, Long> counts,
      Optional<Duration> oldestPending,
      Optional<Duration> oldestUndispatched,
      Optional<Duration> oldestOverdueRetry) {

    public InstanceStats {
      counts = Map.copyOf(counts);
    }
  }

  /** Reads the stats (see {@link InstanceStats}). */
  public InstanceStats read() {
    Field<Instant> now = DSL.field("now()", Instant.class).as("now");
    Field<Instant> pending =
        DSL.min(TASK_INSTANCE.UPDATED_AT).filterWhere(pending()).as("oldest_pending");
    Field<Instant> undispatched =
        DSL.min(TASK_INSTANCE.UPDATED_AT)
            .filterWhere(pending().and(TASK_INSTANCE.DISPATCHED_AT.isNull()))
            .as("oldest_undispatched");
    Field<Instant> overdue =
        DSL.min(TASK_INSTANCE.NEXT_ATTEMPT_AT)
            .filterWhere(
                Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.RETRY_WAIT)
                    .and(TASK_INSTANCE.NEXT_ATTEMPT_AT.le(Sql.NOW)))
            .as("oldest_overdue");
    Map<InstanceStatus, Field<Integer>> countFields = new EnumMap<>(InstanceStatus.class);
    for (InstanceStatus s : InstanceStatus.LIVE) {
      countFields.put(
          s,
          DSL.count()
              .filterWhere(Sql.statusIs(TASK_INSTANCE.STATUS, s))
              .as(s.name().toLowerCase()));
    }
    Record r =
        dsl.select(countFields.values())
            .select(now, pending, undispatched, overdue)
            .from(TASK_INSTANCE)
            // The live statuses as literals, so that the planner can use the partial index.
            .where(
                TASK_INSTANCE.STATUS.in(
                    InstanceStatus.LIVE.stream().map(s -> DSL.inline(s.name())).toList()))
            .fetchOne();
    Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
    countFields.forEach((s, f) -> counts.put(s, r.get(f).longValue()));
    counts.put(
        InstanceStatus.DEAD,
        (long)
            dsl.fetchCount(TASK_INSTANCE, Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.DEAD)));
    Instant at = r.get(now);
    return new InstanceStats(
        counts, age(at, r.get(pending)), age(at, r.get(undispatched)), age(at, r.get(overdue)));
  }

  private static org.jooq.Condition pending() {
    return Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.PENDING);
  }

  private static Optional<Duration> age(Instant now, Instant since) {
    if (since == null) {
      return Optional.empty();
    }
    Duration d = Duration.between(since, now);
    return Optional.of(d.isNegative() ? Duration.ZERO : d);
  }
}
