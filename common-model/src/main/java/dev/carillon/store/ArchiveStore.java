package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.INSTANCE_CHECKPOINT;
import static dev.carillon.store.jooq.Tables.INSTANCE_CHECKPOINT_HISTORY;
import static dev.carillon.store.jooq.Tables.INSTANCE_EFFECT;
import static dev.carillon.store.jooq.Tables.INSTANCE_EFFECT_HISTORY;
import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT_HISTORY;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE_HISTORY;

import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * Housekeeping: moves finished instances older than a retention, with their events, checkpoints and
 * effects, to the history tables. Each batch is one transaction, so an instance is either live with
 * its events or archived with them, never half-moved; rows another archiver holds are skipped
 * ({@code FOR UPDATE SKIP LOCKED}), so two copies never move the same row.
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
   * @param fence the retry leader's fence; the batch is moved only while it is current
   * @return the ids archived (empty when nothing is due)
   * @throws FencedException when {@code fence} is no longer current; nothing was moved
   */
  public List<Long> archiveFinished(Duration retention, int limit, Fence fence) {
    java.util.Objects.requireNonNull(fence, "fence");
    if (limit <= 0) {
      return List.of();
    }
    Field<java.time.Instant> cutoff = Sql.ago(retention);
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          List<Long> ids =
              tx.select(TASK_INSTANCE.ID)
                  .from(TASK_INSTANCE)
                  .where(Sql.statusIn(TASK_INSTANCE.STATUS, InstanceStatus.FINISHED))
                  .and(TASK_INSTANCE.FINISHED_AT.lt(cutoff))
                  .orderBy(TASK_INSTANCE.FINISHED_AT, TASK_INSTANCE.ID)
                  .limit(limit)
                  .forUpdate()
                  .skipLocked()
                  .fetch(TASK_INSTANCE.ID);
          if (ids.isEmpty()) {
            return List.of();
          }
          // The picked rows and their events, each found through an index: instances by key,
          // events through their instances' windows (the event table has no instance_id index).
          Table<?> pickedIds = Sql.idTable(ids);
          Condition isPicked = TASK_INSTANCE.ID.in(DSL.select(Sql.ID_COLUMN).from(pickedIds));
          Condition ofPicked =
              DSL.row(INSTANCE_EVENT.TASK_ID, INSTANCE_EVENT.WINDOW_KEY, INSTANCE_EVENT.INSTANCE_ID)
                  .in(
                      DSL.select(TASK_INSTANCE.TASK_ID, TASK_INSTANCE.WINDOW_KEY, TASK_INSTANCE.ID)
                          .from(TASK_INSTANCE)
                          .where(isPicked));
          Condition checkpointsOfPicked =
              INSTANCE_CHECKPOINT.INSTANCE_ID.in(DSL.select(Sql.ID_COLUMN).from(pickedIds));
          Condition effectsOfPicked =
              INSTANCE_EFFECT.INSTANCE_ID.in(DSL.select(Sql.ID_COLUMN).from(pickedIds));
          Condition fenced = Fences.current(fence);
          copy(tx, TASK_INSTANCE, TASK_INSTANCE_HISTORY, isPicked.and(fenced));
          copy(tx, INSTANCE_EVENT, INSTANCE_EVENT_HISTORY, ofPicked.and(fenced));
          copy(
              tx,
              INSTANCE_CHECKPOINT,
              INSTANCE_CHECKPOINT_HISTORY,
              checkpointsOfPicked.and(fenced));
          copy(tx, INSTANCE_EFFECT, INSTANCE_EFFECT_HISTORY, effectsOfPicked.and(fenced));
          tx.deleteFrom(INSTANCE_CHECKPOINT).where(checkpointsOfPicked).and(fenced).execute();
          tx.deleteFrom(INSTANCE_EFFECT).where(effectsOfPicked).and(fenced).execute();
          tx.deleteFrom(INSTANCE_EVENT).where(ofPicked).and(fenced).execute();
          int deleted = tx.deleteFrom(TASK_INSTANCE).where(isPicked).and(fenced).execute();
          // The picked rows are locked by this transaction, so only the fence can leave one.
          if (deleted < ids.size()) {
            throw new FencedException(fence, "archive of " + ids.size() + " instance(s)");
          }
          return List.copyOf(ids);
        });
  }

  /**
   * {@code INSERT INTO history (cols) SELECT cols FROM live WHERE ...}: every column of the live
   * table goes to the history column of the same name; {@code archived_at} takes its default. A row
   * archived before (a retry of a batch) is left alone.
   */
  private static void copy(DSLContext tx, Table<?> live, Table<?> history, Condition which) {
    List<Field<?>> from = new ArrayList<>();
    List<Field<?>> to = new ArrayList<>();
    for (Field<?> f : live.fields()) {
      from.add(f);
      to.add(history.field(f.getName()));
    }
    tx.insertInto(history, to)
        .select(DSL.select(from).from(live).where(which))
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
