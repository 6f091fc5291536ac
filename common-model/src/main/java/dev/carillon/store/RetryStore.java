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

/**
 * The retry service's side of an instance: leases that expired become TIMEOUT, FAILED and TIMEOUT
 * instances wait for a decision (RETRY_WAIT or DEAD), due retries become PENDING again, and PENDING
 * instances that no worker will hear about (never published, or published long ago and still not
 * claimed: the message was lost, or the worker that got it died before claiming) are published
 * again. Times are the database's.
 *
 * <p>The scans each read their own partial index ({@code WHERE status = 'RUNNING'} and the like),
 * take at most a batch, and skip rows another scanner holds ({@code FOR UPDATE SKIP LOCKED}), so
 * two scanners never move the same row. Publishing a stranded instance is claimed with a
 * compare-and-set on {@code dispatched_at}, so two scanners never publish it in one round; a
 * duplicate message would still be harmless, since the workers' claim is itself a compare-and-set.
 *
 * <p>Thread-safe; every method is one statement or one transaction.
 */
public final class RetryStore {
  private final DSLContext dsl;

  public RetryStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * Moves RUNNING instances whose lease expired (database time) to TIMEOUT, at most {@code limit},
   * skipping rows another scanner holds. Returns the instances moved.
   */
  public List<Instance> expireLeases(int limit, String actor) {
    return bulkMove(
        InstanceStatus.RUNNING,
        InstanceStatus.TIMEOUT,
        TASK_INSTANCE.LEASE_UNTIL.lt(Sql.NOW),
        TASK_INSTANCE.LEASE_UNTIL,
        limit,
        actor,
        i -> "lease expired at " + i.leaseUntil() + " (worker " + i.workerId() + ")",
        u -> u.set(TASK_INSTANCE.FAIL_REASON, "lease expired: the worker died or froze"));
  }

  /**
   * Moves RETRY_WAIT instances whose {@code next_attempt_at} has come to PENDING, {@code
   * retry_count + 1}, undispatched; at most {@code limit}, oldest due first.
   */
  public List<Instance> promoteDueRetries(int limit, String actor) {
    return bulkMove(
        InstanceStatus.RETRY_WAIT,
        InstanceStatus.PENDING,
        TASK_INSTANCE.NEXT_ATTEMPT_AT.le(Sql.NOW),
        TASK_INSTANCE.NEXT_ATTEMPT_AT,
        limit,
        actor,
        i -> "retry " + i.retryCount() + " of " + i.maxRetry() + " due",
        u ->
            u.set(TASK_INSTANCE.RETRY_COUNT, TASK_INSTANCE.RETRY_COUNT.plus(1))
                .set(TASK_INSTANCE.DISPATCHED_AT, (Instant) null));
  }

  private interface Reason {
    String of(Instance moved);
  }

  private List<Instance> bulkMove(
      InstanceStatus from,
      InstanceStatus to,
      Condition due,
      Field<Instant> order,
      int limit,
      String actor,
      Reason reason,
      CompareAndSet.Changes changes) {
    from.checkTransition(to);
    if (limit <= 0) {
      return List.of();
    }
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          // Lock and fetch the ids first: as a sub-select of the UPDATE, PostgreSQL may rescan a
          // LIMIT ... SKIP LOCKED query and move more than `limit` rows.
          Long[] picked =
              tx.select(TASK_INSTANCE.ID)
                  .from(TASK_INSTANCE)
                  .where(Sql.statusIs(TASK_INSTANCE.STATUS, from))
                  .and(due)
                  .orderBy(order, TASK_INSTANCE.ID)
                  .limit(limit)
                  .forUpdate()
                  .skipLocked()
                  .fetchArray(TASK_INSTANCE.ID);
          if (picked.length == 0) {
            return List.<Instance>of();
          }
          var update =
              tx.update(TASK_INSTANCE)
                  .set(TASK_INSTANCE.STATUS, to.name())
                  .set(TASK_INSTANCE.UPDATED_AT, Sql.NOW);
          List<Instance> moved =
              changes
                  .apply(update)
                  .from(Sql.idTable(List.of(picked)))
                  .where(TASK_INSTANCE.ID.eq(Sql.ID_COLUMN))
                  .and(TASK_INSTANCE.STATUS.eq(from.name()))
                  .returning()
                  .fetch()
                  .map(InstanceRows::toInstance);
          EventRows.insert(
              tx,
              moved.stream().map(i -> EventRows.transition(i, from, actor, reason.of(i))).toList());
          return moved;
        });
  }

  /** FAILED and TIMEOUT instances awaiting the retry decision, oldest first. */
  public List<Instance> awaitingDecision(int limit) {
    return dsl.selectFrom(TASK_INSTANCE)
        .where(
            Sql.statusIn(
                TASK_INSTANCE.STATUS, List.of(InstanceStatus.FAILED, InstanceStatus.TIMEOUT)))
        .orderBy(TASK_INSTANCE.UPDATED_AT, TASK_INSTANCE.ID)
        .limit(limit)
        .fetch()
        .map(InstanceRows::toInstance);
  }

  /** FAILED/TIMEOUT → RETRY_WAIT, fenced by attempt, stamping the time and the policy version. */
  public boolean scheduleRetry(
      Instance failed, Instant nextAttemptAt, Long policyVersion, String actor, String reason) {
    return CompareAndSet.move(
            dsl,
            failed.id(),
            failed.status(),
            failed.attempt(),
            InstanceStatus.RETRY_WAIT,
            actor,
            reason,
            u ->
                u.set(TASK_INSTANCE.NEXT_ATTEMPT_AT, nextAttemptAt)
                    .set(TASK_INSTANCE.POLICY_VERSION, policyVersion))
        .isPresent();
  }

  /** FAILED/TIMEOUT → DEAD, fenced by attempt. */
  public boolean markDead(Instance failed, Long policyVersion, String actor, String reason) {
    return CompareAndSet.move(
            dsl,
            failed.id(),
            failed.status(),
            failed.attempt(),
            InstanceStatus.DEAD,
            actor,
            reason,
            u ->
                u.set(TASK_INSTANCE.POLICY_VERSION, policyVersion)
                    .set(TASK_INSTANCE.FAIL_REASON, Outcome.clip(reason)))
        .isPresent();
  }

  /**
   * Stranded means PENDING and either never dispatched and (a retry, or created more than {@code
   * undispatchedAfter} ago, so the trigger's own fresh rows, which it is about to publish, are left
   * to it), or dispatched more than {@code redispatchAfter} ago while some live worker can run it.
   * An instance that no live, ready worker serves (its queue, its handler) was published once and
   * waits in its queue's topic; publishing it again every {@code redispatchAfter} would only make
   * records nobody claims. Once a worker serves it, it is stranded again and published.
   */
  private static Condition stranded(Duration undispatchedAfter, Duration redispatchAfter) {
    return Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.PENDING)
        .and(
            TASK_INSTANCE
                .DISPATCHED_AT
                .isNull()
                .and(
                    TASK_INSTANCE
                        .RETRY_COUNT
                        .gt(0)
                        .or(TASK_INSTANCE.CREATED_AT.lt(Sql.ago(undispatchedAfter))))
                .or(
                    TASK_INSTANCE
                        .DISPATCHED_AT
                        .lt(Sql.ago(redispatchAfter))
                        .and(Serving.servable(TASK_INSTANCE.TASK_ID))));
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
        .map(InstanceRows::toInstance);
  }

  /**
   * RETRY_WAIT instances whose time has come (database time): the backlog a rate limit may be
   * holding back.
   */
  public int countDueRetries() {
    return dsl.fetchCount(
        TASK_INSTANCE,
        Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.RETRY_WAIT)
            .and(TASK_INSTANCE.NEXT_ATTEMPT_AT.le(Sql.NOW)));
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
        .set(TASK_INSTANCE.DISPATCHED_AT, Sql.NOW)
        .from(Sql.idTable(ids))
        .where(TASK_INSTANCE.ID.eq(Sql.ID_COLUMN))
        .and(stranded(undispatchedAfter, redispatchAfter))
        .returning()
        .fetch()
        .map(InstanceRows::toInstance);
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
        .from(Sql.idTable(ids))
        .where(TASK_INSTANCE.ID.eq(Sql.ID_COLUMN))
        .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.PENDING.name()))
        .execute();
  }

  /**
   * Stamps {@code dispatched_at} on the promoted instances among {@code ids} that are still
   * PENDING, once Kafka acknowledged their ids; rows another transaction holds are skipped.
   *
   * @return the rows stamped
   */
  public int markDispatched(Collection<Long> ids) {
    return DispatchStamp.mark(dsl, ids);
  }
}
