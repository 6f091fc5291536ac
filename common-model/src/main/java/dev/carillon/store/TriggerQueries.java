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
import org.jooq.Row2;
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
    return dsl.select(DSL.field("clock_timestamp()", SQLDataType.INSTANT)).fetchSingle().value1();
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
    // IN (SELECT unnest(array)), not = ANY(array): PostgreSQL does not hash the array of "= ANY"
    // when it filters a sequential scan, so each row is compared with every id (rows × ids), and a
    // new leader's first tick loads every task. The sub-select becomes a semi join (hashed, or one
    // index probe per id), linear in rows + ids.
    // The ids' range as well, so that a page of a large read (DefinitionCache reads a new
    // leader's every row in pages of sorted ids) is an index range scan, not a scan of the whole
    // table per page. PostgreSQL takes the bounds, in its collation: Java's order of strings is
    // not the database's, and a bound taken in Java could leave rows out.
    return dsl.select(TASK_DEFINITION.asterisk(), STAMP)
        .from(TASK_DEFINITION)
        .where(TASK_DEFINITION.TASK_ID.in(DSL.select(unnest(ids))))
        .and(TASK_DEFINITION.TASK_ID.between(bound(DSL::min, ids), bound(DSL::max, ids)))
        .and(TASK_DEFINITION.DELETED_AT.isNull())
        .orderBy(TASK_DEFINITION.TASK_ID)
        .fetch()
        .map(r -> new StampedTask(TaskStore.load(r.into(TASK_DEFINITION)), r.get(STAMP)));
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

  /** {@code (SELECT min(id) FROM unnest(ids))} or max: a bound in the database's collation. */
  private static Field<String> bound(
      java.util.function.Function<Field<String>, Field<String>> aggregate, Collection<String> ids) {
    Field<String> id = DSL.field(DSL.name("page", "id"), String.class);
    return DSL.field(
        DSL.select(aggregate.apply(id))
            .from(
                DSL.table("unnest({0}::varchar[])", DSL.val(ids.toArray(String[]::new)))
                    .as("page", "id")));
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
