package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.jooq.tables.records.TaskInstanceRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Table;

/**
 * The sweeps' read of PENDING rows never dispatched, bounded. Why: the trigger's sweep and the
 * retry service's stranded scan look for such rows that have waited long enough, in the dispatch
 * index's order (lowest ids first); when none has (a burst whose rows are all being published right
 * now), a search over the whole index read every one of them, for nothing, on every pass: 100,000
 * entries a second in the 100,000 burst, the largest avoidable share of PostgreSQL's time in it
 * (docs/benchmarks.md, "Item 1: where the CPU goes"). So the search reads at most {@link
 * #SCAN_LIMIT} entries, the lowest ids. Ids grow with creation, so the rows that waited longest are
 * among them; a row that waited long behind more than that many younger rows of lower ids (rows
 * re-queued by a retry or a lost lease keep their id) is found once those are old enough too, at
 * most the sweep's grace later.
 */
final class Undispatched {
  /** The most never-dispatched entries one search reads. */
  static final int SCAN_LIMIT = 10_000;

  private Undispatched() {}

  /**
   * PENDING rows to publish, at most {@code limit}: those never dispatched that have waited long
   * enough, lowest ids first, among the first {@code scanLimit} never-dispatched rows; then, while
   * there is room, those dispatched long ago, the longest ago first. Two reads, each along its own
   * part of the dispatch index; a row stamped between them is in neither.
   *
   * @param waitedEnough the condition on a never-dispatched row, over the search's table
   * @param dispatchedLongAgo the condition on a dispatched PENDING row of {@code task_instance}
   */
  static List<Instance> read(
      DSLContext dsl,
      int scanLimit,
      int limit,
      Function<Table<TaskInstanceRecord>, Condition> waitedEnough,
      Condition dispatchedLongAgo) {
    Table<TaskInstanceRecord> first = first(dsl, scanLimit);
    List<Instance> out =
        new ArrayList<>(
            dsl.selectFrom(first)
                .where(waitedEnough.apply(first))
                .orderBy(first.field(TASK_INSTANCE.ID))
                .limit(limit)
                .fetchInto(TASK_INSTANCE)
                .map(InstanceRows::toInstance));
    if (out.size() < limit) {
      out.addAll(
          dsl.selectFrom(TASK_INSTANCE)
              .where(Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.PENDING))
              .and(TASK_INSTANCE.DISPATCHED_AT.isNotNull())
              .and(dispatchedLongAgo)
              .orderBy(TASK_INSTANCE.DISPATCHED_AT.asc(), TASK_INSTANCE.ID)
              .limit(limit - out.size())
              .fetch()
              .map(InstanceRows::toInstance));
    }
    return out;
  }

  /**
   * The first {@code scanLimit} PENDING rows never dispatched, lowest ids first, as a derived
   * table: a search with its own limit, which the planner cannot fold into the caller's conditions
   * (an {@code id IN (...)} form was read as a filter over every such row). The backlog's age
   * ({@link WindowStore#oldestUndispatchedAge}) is read from the same search.
   */
  static Table<TaskInstanceRecord> first(DSLContext dsl, int scanLimit) {
    return dsl.selectFrom(TASK_INSTANCE)
        .where(Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.PENDING))
        .and(TASK_INSTANCE.DISPATCHED_AT.isNull())
        .orderBy(TASK_INSTANCE.DISPATCHED_AT.asc().nullsFirst(), TASK_INSTANCE.ID)
        .limit(scanLimit)
        .asTable("first_undispatched");
  }
}
