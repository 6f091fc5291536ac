package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The retry service's view of PENDING instances that no worker will hear about: never published, or
 * published long ago and still not claimed (the message was lost, or the worker that got it died
 * before claiming). Times are the database's.
 *
 * <p>Publishing is claimed with a compare-and-set on {@code dispatched_at}, so two scanners never
 * publish the same stranded instance in one round; a duplicate message would still be harmless,
 * since the workers' claim is itself a compare-and-set.
 *
 * <p>Thread-safe; every call runs in its own statement.
 */
public final class DispatchStore {
  private final DSLContext dsl;

  public DispatchStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  private static Field<Instant> ago(Duration d) {
    return DSL.field(
        "now() - ({0} * interval '1 millisecond')", SQLDataType.INSTANT, DSL.val(d.toMillis()));
  }

  /**
   * Stranded means PENDING and either never dispatched and (a retry, or created more than {@code
   * undispatchedAfter} ago, so the trigger's own fresh rows, which it is about to publish, are left
   * to it), or dispatched more than {@code redispatchAfter} ago.
   */
  private static Condition stranded(Duration undispatchedAfter, Duration redispatchAfter) {
    return TASK_INSTANCE
        .STATUS
        .eq(InstanceStatus.PENDING.name())
        .and(
            TASK_INSTANCE
                .DISPATCHED_AT
                .isNull()
                .and(
                    TASK_INSTANCE
                        .RETRY_COUNT
                        .gt(0)
                        .or(TASK_INSTANCE.CREATED_AT.lt(ago(undispatchedAfter))))
                .or(TASK_INSTANCE.DISPATCHED_AT.lt(ago(redispatchAfter))));
  }

  /** Stranded PENDING instances, longest waiting first, at most {@code limit}. Reads only. */
  public List<Instance> stranded(Duration undispatchedAfter, Duration redispatchAfter, int limit) {
    if (limit <= 0) {
      return List.of();
    }
    return dsl.selectFrom(TASK_INSTANCE)
        .where(stranded(undispatchedAfter, redispatchAfter))
        .orderBy(TASK_INSTANCE.DISPATCHED_AT.asc().nullsFirst(), TASK_INSTANCE.ID)
        .limit(limit)
        .fetch()
        .map(InstanceStore::toInstance);
  }

  /**
   * RETRY_WAIT instances whose time has come (database time): the backlog a rate limit may be
   * holding back.
   */
  public int countDueRetries() {
    return dsl.fetchCount(
        TASK_INSTANCE,
        TASK_INSTANCE
            .STATUS
            .eq(InstanceStatus.RETRY_WAIT.name())
            .and(TASK_INSTANCE.NEXT_ATTEMPT_AT.le(InstanceStore.NOW)));
  }

  /**
   * Claims the right to publish: stamps {@code dispatched_at = now} on those of {@code ids} that
   * are still stranded, in one statement, and returns them. Another scanner that stamped a row
   * first makes the condition false here, so each stranded instance is claimed once per round.
   */
  public List<Instance> claimForDispatch(
      Collection<Long> ids, Duration undispatchedAfter, Duration redispatchAfter) {
    if (ids.isEmpty()) {
      return List.of();
    }
    return dsl.update(TASK_INSTANCE)
        .set(TASK_INSTANCE.DISPATCHED_AT, InstanceStore.NOW)
        .from(InstanceStore.idTable(ids))
        .where(TASK_INSTANCE.ID.eq(InstanceStore.ID_COLUMN))
        .and(stranded(undispatchedAfter, redispatchAfter))
        .returning()
        .fetch()
        .map(InstanceStore::toInstance);
  }

  /**
   * Clears {@code dispatched_at} of PENDING instances whose message Kafka did not acknowledge, so
   * the next scan tries them again instead of waiting for the re-dispatch age.
   */
  public int unmarkDispatched(Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return dsl.update(TASK_INSTANCE)
        .set(TASK_INSTANCE.DISPATCHED_AT, (Instant) null)
        .from(InstanceStore.idTable(ids))
        .where(TASK_INSTANCE.ID.eq(InstanceStore.ID_COLUMN))
        .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.PENDING.name()))
        .execute();
  }
}
