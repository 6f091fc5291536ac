package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.InstanceStatus;
import java.util.Collection;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * The {@code dispatched_at} stamp, written by everyone who publishes instance ids (the trigger, a
 * worker giving runs back, the retry service, {@code schedctl}) once Kafka acknowledged them, so
 * that the stranded-PENDING sweeps leave those rows alone.
 */
final class DispatchStamp {
  /**
   * The most ids one stamp statement covers. Each statement is its own transaction and holds the
   * row locks of its rows until it commits, and a worker's claim of one of those rows waits for it
   * (claims do not skip locked rows). The dispatcher stamps everything acknowledged {@code
   * stampDelay} ago at once, which in a burst that outlasts that delay is tens of thousands of
   * rows, exactly the ones the workers are claiming next: one statement for all of them would stall
   * every claim for the length of the whole stamp. Fixed-size pieces bound that wait by the time of
   * one piece, whatever the burst's size.
   */
  static final int CHUNK = 1_000;

  private static final String LOCKED_ID = "locked_id";

  private DispatchStamp() {}

  /**
   * Stamps {@code dispatched_at} on the instances among {@code ids} that are still PENDING, in
   * statements of at most {@link #CHUNK} ids, each its own transaction (when {@code dsl} is not in
   * one already).
   *
   * <p>Rows locked by another transaction are skipped ({@code FOR UPDATE SKIP LOCKED}) rather than
   * waited for: during a burst that transaction is almost always a worker's claim, after which the
   * row is no longer PENDING and needs no stamp. Waiting would serialize the trigger's publishing
   * behind the workers' claims. A row skipped for another reason keeps a null stamp and is
   * published again by a later sweep, which costs a duplicate message (its claim is lost), not a
   * lost run.
   *
   * @param fence the publishing leader's fence, or {@code null} for a publisher that is not a
   *     leader (a worker, {@code schedctl}); with one, the stamp is applied only while it is
   *     current
   * @return the rows stamped
   */
  static int mark(DSLContext dsl, Collection<Long> ids, Fence fence) {
    if (ids.size() <= CHUNK) {
      return markChunk(dsl, ids, fence);
    }
    List<Long> all = List.copyOf(ids);
    int stamped = 0;
    for (int from = 0; from < all.size(); from += CHUNK) {
      stamped += markChunk(dsl, all.subList(from, Math.min(all.size(), from + CHUNK)), fence);
    }
    return stamped;
  }

  /** One statement, one transaction: at most {@link #CHUNK} ids. */
  private static int markChunk(DSLContext dsl, Collection<Long> ids, Fence fence) {
    return ids.isEmpty() ? 0 : chunkQuery(dsl, ids, fence).execute();
  }

  /** The statement of {@link #markChunk} (a test reads its plan). */
  static Query chunkQuery(DSLContext dsl, Collection<Long> ids, Fence fence) {
    // The rows are locked first and the update joins them by id. The status is not a bound value
    // beside an IN (...) of the ids: with statistics taken before a burst, PostgreSQL drove that
    // from the PENDING index and compared every PENDING row with every id in a nested loop, 2.5 s
    // for 1,000 ids among 20,000 PENDING rows (BatchPlansTest). The expected status is a join
    // column (Sql.idTable(ids, expected)), so the rows are found by the ids: a probe per id or
    // one hash join. The lock rechecks the status on the row's newest version, and no one else
    // can change a row this statement holds, so the update needs no second status check.
    Table<?> locked =
        DSL.select(TASK_INSTANCE.ID.as(LOCKED_ID))
            .from(TASK_INSTANCE)
            .join(Sql.idTable(ids, InstanceStatus.PENDING))
            .on(TASK_INSTANCE.ID.eq(Sql.ID_COLUMN))
            .and(TASK_INSTANCE.STATUS.eq(Sql.EXPECTED_COLUMN))
            .forUpdate()
            .of(TASK_INSTANCE)
            .skipLocked()
            .asTable("locked");
    return dsl.update(TASK_INSTANCE)
        .set(TASK_INSTANCE.DISPATCHED_AT, Sql.NOW)
        .from(locked)
        .where(TASK_INSTANCE.ID.eq(locked.field(LOCKED_ID, Long.class)))
        .and(fence == null ? DSL.noCondition() : Fences.current(fence));
  }
}
