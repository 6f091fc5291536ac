package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT_HISTORY;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE_HISTORY;

import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Housekeeping: moves finished instances older than a retention, with their events, to the history
 * tables. Each batch is one transaction, so an instance is either live with its events or archived
 * with them, never half-moved; rows another archiver holds are skipped ({@code FOR UPDATE SKIP
 * LOCKED}), so two copies never move the same row.
 *
 * <p>Thread-safe; every call runs in its own transaction.
 */
public final class ArchiveStore {
  private final DSLContext dsl;

  public ArchiveStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * Archives up to {@code limit} instances in a finished status whose {@code finished_at} is more
   * than {@code retention} before the database's now, oldest first, with all their events.
   *
   * @return the ids archived (empty when nothing is due)
   */
  public List<Long> archiveFinished(Duration retention, int limit) {
    if (limit <= 0) {
      return List.of();
    }
    Field<java.time.Instant> cutoff =
        DSL.field(
            "now() - ({0} * interval '1 millisecond')",
            SQLDataType.INSTANT, DSL.val(retention.toMillis()));
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          List<Long> ids =
              tx.select(TASK_INSTANCE.ID)
                  .from(TASK_INSTANCE)
                  .where(InstanceStore.statusIn(TASK_INSTANCE.STATUS, InstanceStatus.FINISHED))
                  .and(TASK_INSTANCE.FINISHED_AT.lt(cutoff))
                  .orderBy(TASK_INSTANCE.FINISHED_AT, TASK_INSTANCE.ID)
                  .limit(limit)
                  .forUpdate()
                  .skipLocked()
                  .fetch(TASK_INSTANCE.ID);
          if (ids.isEmpty()) {
            return List.of();
          }
          Long[] picked = ids.toArray(Long[]::new);
          copy(tx, TASK_INSTANCE, TASK_INSTANCE_HISTORY, TASK_INSTANCE.ID, picked);
          copy(tx, INSTANCE_EVENT, INSTANCE_EVENT_HISTORY, INSTANCE_EVENT.INSTANCE_ID, picked);
          tx.deleteFrom(INSTANCE_EVENT)
              .where(INSTANCE_EVENT.INSTANCE_ID.eq(DSL.any(picked)))
              .execute();
          tx.deleteFrom(TASK_INSTANCE).where(TASK_INSTANCE.ID.eq(DSL.any(picked))).execute();
          return List.copyOf(ids);
        });
  }

  /**
   * {@code INSERT INTO history (cols) SELECT cols FROM live WHERE key = ANY(?)}: every column of
   * the live table goes to the history column of the same name; {@code archived_at} takes its
   * default. A row archived before (a retry of a batch) is left alone.
   */
  private static void copy(
      DSLContext tx, Table<?> live, Table<?> history, Field<Long> key, Long[] ids) {
    List<Field<?>> from = new ArrayList<>();
    List<Field<?>> to = new ArrayList<>();
    for (Field<?> f : live.fields()) {
      from.add(f);
      to.add(history.field(f.getName()));
    }
    tx.insertInto(history, to)
        .select(DSL.select(from).from(live).where(key.eq(DSL.any(ids))))
        .onConflictDoNothing()
        .execute();
  }

  /** How many instances are in the history table; for metrics and tests. */
  public int archivedCount() {
    return dsl.fetchCount(TASK_INSTANCE_HISTORY);
  }

  /** The archived events of one instance, oldest first; for tests and {@code schedctl}. */
  public List<String> archivedEventReasons(long instanceId) {
    return dsl.select(INSTANCE_EVENT_HISTORY.REASON)
        .from(INSTANCE_EVENT_HISTORY)
        .where(INSTANCE_EVENT_HISTORY.INSTANCE_ID.eq(instanceId))
        .orderBy(INSTANCE_EVENT_HISTORY.ID)
        .fetch(INSTANCE_EVENT_HISTORY.REASON);
  }

  /** Whether instance {@code id} is in the history table. */
  public boolean isArchived(long id) {
    return dsl.fetchExists(TASK_INSTANCE_HISTORY, TASK_INSTANCE_HISTORY.ID.eq(id));
  }
}
