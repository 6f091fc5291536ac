package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static dev.carillon.store.jooq.Tables.TASK_DEFINITION_CHANGE;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.ResultQuery;
import org.jooq.Row2;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The reads the trigger needs besides {@link WindowStore} and {@link TaskStore}: cheap change
 * detection on task definitions, loading only the changed rows, the live instances of the due
 * tasks, and the current state of windows whose insert turned out to be a no-op.
 *
 * <p>Change detection is in two steps, both of which notice an operator editing a row by hand in
 * SQL: a one-row counter that a database trigger moves once in every changing transaction ({@link
 * #taskFingerprint}), then, only when it moved, PostgreSQL's {@code xmin} system column (the id of
 * the transaction that wrote the row version) as each row's stamp, because a hand edit changes
 * neither {@code version} nor {@code updated_at}, but always changes {@code xmin}.
 *
 * <p>Thread-safe; every method is one statement.
 */
public final class TriggerQueries {
  private static final Field<Long> STAMP = DSL.field("xmin::text::bigint", SQLDataType.BIGINT);
  private static final Field<Long> ROW_STAMP = STAMP.as("row_stamp");

  private final DSLContext dsl;

  public TriggerQueries(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * A value that changes whenever a transaction that inserted, updated or deleted task rows
   * commits.
   *
   * @param changes the count of such transactions, kept by a database trigger (migrations V5 and
   *     V6), so a change made by hand in SQL counts too
   */
  public record TaskFingerprint(long changes) {}

  /** A task row as read back, with its row stamp. */
  public record StampedTask(LoadedTask task, long stamp) {}

  /**
   * One row, whatever the number of tasks: cheap enough for every pass of every loop, where a count
   * or a sum over the task rows would scan the whole table.
   */
  public TaskFingerprint taskFingerprint() {
    return new TaskFingerprint(
        dsl.select(TASK_DEFINITION_CHANGE.CHANGES)
            .from(TASK_DEFINITION_CHANGE)
            .where(TASK_DEFINITION_CHANGE.ID.eq(1))
            .fetchSingle(TASK_DEFINITION_CHANGE.CHANGES));
  }

  /**
   * PostgreSQL's clock now ({@code clock_timestamp()}, not the transaction's start): the clock the
   * trigger ticks on, since leases, due times and the claims' not-before check all use it.
   */
  public Instant databaseTime() {
    return Sql.clockTimestamp(dsl);
  }

  /** Every task id with its row stamp; deleted tasks are left out, so the trigger drops them. */
  public Map<String, Long> taskStamps() {
    Map<String, Long> out = new HashMap<>();
    dsl.select(TASK_DEFINITION.TASK_ID, STAMP)
        .from(TASK_DEFINITION)
        .where(TASK_DEFINITION.DELETED_AT.isNull())
        .fetch()
        .forEach(r -> out.put(r.value1(), r.value2()));
    return out;
  }

  /**
   * The given task rows that are not deleted, each validated again (see {@link
   * TaskStore#loadAll()}).
   */
  public List<StampedTask> loadTasks(Collection<String> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    return loadTasksQuery(ids)
        .fetch()
        .map(
            r ->
                new StampedTask(
                    TaskStore.load(r.into(TASK_DEFINITION)),
                    r.get(ROW_STAMP.getName(), Long.class)));
  }

  /** The statement {@link #loadTasks} runs, for tests of its plan. */
  ResultQuery<Record> loadTasksQuery(Collection<String> ids) {
    // One primary-key probe per id, whatever the statistics say: the ids drive a nested loop into
    // a LATERAL sub-select that OFFSET 0 keeps PostgreSQL from flattening into a join it would
    // plan on its own. Plans it chose on its own went badly right after a bulk apply, before
    // autovacuum had analyzed the table (measured, 100,000 fresh rows, a page of 20,000 ids):
    // "IN (SELECT unnest) AND task_id BETWEEN min AND max" estimated the range at one row and
    // compared every row of it with every id, 200 million comparisons, 23 s, past the statement
    // timeout, so a trigger started after a large apply could not load its tasks (the bench's
    // first 100,000 burst failed so); without the range it read the whole table per page, and a
    // merge join read the index from its start to the page, quadratic over a first load. The
    // probes took 46 ms a page of 20,000 at 1,000,000 rows, analyzed or not, custom or generic
    // plan ("= ANY(array)" is no better: PostgreSQL filters a sequential scan with it, rows × ids).
    Table<?> page =
        DSL.table("unnest({0}::varchar[])", DSL.val(ids.toArray(String[]::new))).as("page", "id");
    Field<String> pageId = DSL.field(DSL.name("page", "id"), String.class);
    Table<?> row =
        DSL.lateral(
                DSL.select(TASK_DEFINITION.asterisk(), ROW_STAMP)
                    .from(TASK_DEFINITION)
                    .where(TASK_DEFINITION.TASK_ID.eq(pageId))
                    .and(TASK_DEFINITION.DELETED_AT.isNull())
                    .offset(DSL.inline(0)))
            .as("d");
    return dsl.select(DSL.table(DSL.name("d")).asterisk())
        .from(page)
        .crossJoin(row)
        .orderBy(DSL.field(DSL.name("d", TASK_DEFINITION.TASK_ID.getName())));
  }

  /**
   * The given tasks' instances in a live status (see {@link InstanceStatus#LIVE}), oldest first:
   * what the tick planner needs for window-exists and overlap decisions.
   */
  public List<Instance> liveInstances(Collection<String> taskIds) {
    if (taskIds.isEmpty()) {
      return List.of();
    }
    // A semi join on unnest(), for the reason given in loadTasks: right after a large tick, before
    // autovacuum has analyzed task_instance, PostgreSQL believes the table is tiny and filters a
    // sequential scan with "= ANY(ids)", comparing every row with every id.
    return dsl.selectFrom(TASK_INSTANCE)
        .where(TASK_INSTANCE.TASK_ID.in(DSL.select(unnest(taskIds))))
        // Literal statuses, so that a generic plan can match ix_task_instance_live (V8).
        .and(Sql.statusIn(TASK_INSTANCE.STATUS, InstanceStatus.LIVE))
        .orderBy(TASK_INSTANCE.ID)
        .fetch()
        .map(InstanceRows::toInstance);
  }

  /** The ids as rows of one column, for {@code IN (SELECT ...)}: one bind value however many. */
  private static Field<String> unnest(Collection<String> ids) {
    return DSL.field("unnest({0}::varchar[])", String.class, DSL.val(ids.toArray(String[]::new)));
  }

  /**
   * The instances of the given {@code (task_id, window_key)} pairs, keyed by {@code
   * taskId/windowKey} ({@link Instance#idempotencyKey()}); pairs without a row are absent.
   */
  public Map<String, Instance> windows(Collection<Map.Entry<String, String>> taskAndWindow) {
    if (taskAndWindow.isEmpty()) {
      return Map.of();
    }
    List<Row2<String, String>> pairs = new ArrayList<>(taskAndWindow.size());
    for (Map.Entry<String, String> e : taskAndWindow) {
      pairs.add(DSL.row(e.getKey(), e.getValue()));
    }
    Map<String, Instance> out = new HashMap<>();
    dsl.selectFrom(TASK_INSTANCE)
        .where(DSL.row(TASK_INSTANCE.TASK_ID, TASK_INSTANCE.WINDOW_KEY).in(pairs))
        .fetch()
        .forEach(
            r -> {
              Instance i = InstanceRows.toInstance(r);
              out.put(i.idempotencyKey(), i);
            });
    return out;
  }
}
