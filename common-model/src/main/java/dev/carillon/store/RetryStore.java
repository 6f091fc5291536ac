package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.jooq.tables.records.InstanceEventRecord;
import dev.carillon.store.jooq.tables.records.TaskInstanceRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.UpdateResultStep;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

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
 * <p>Every write is the retry leader's and carries its {@link Fence}: a statement is applied only
 * while the fence is current, and a write refused for that reason throws {@link FencedException}
 * with nothing written.
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
  public List<Instance> expireLeases(int limit, String actor, Fence fence) {
    return bulkMove(
        InstanceStatus.RUNNING,
        InstanceStatus.TIMEOUT,
        TASK_INSTANCE.LEASE_UNTIL.lt(Sql.NOW),
        TASK_INSTANCE.LEASE_UNTIL,
        limit,
        actor,
        i -> "lease expired at " + i.leaseUntil() + " (worker " + i.workerId() + ")",
        u -> u.set(TASK_INSTANCE.FAIL_REASON, "lease expired: the worker died or froze"),
        fence);
  }

  /**
   * Moves RETRY_WAIT instances whose {@code next_attempt_at} has come to PENDING, {@code
   * retry_count + 1}, undispatched; at most {@code limit}, oldest due first.
   */
  public List<Instance> promoteDueRetries(int limit, String actor, Fence fence) {
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
                .set(TASK_INSTANCE.DISPATCHED_AT, (Instant) null),
        fence);
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
      CompareAndSet.Changes changes,
      Fence fence) {
    Objects.requireNonNull(fence, "fence");
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
                  .and(Fences.current(fence))
                  .returning()
                  .fetch()
                  .map(InstanceRows::toInstance);
          // The picked rows are locked by this transaction, so only the fence can leave one out.
          if (moved.size() < picked.length) {
            throw new FencedException(
                fence, from + " -> " + to + " of " + picked.length + " row(s)");
          }
          EventRows.insert(
              tx,
              moved.stream().map(i -> EventRows.transition(i, from, actor, reason.of(i))).toList());
          return moved;
        });
  }

  /**
   * FAILED and TIMEOUT instances awaiting the retry decision, oldest first; quarantined rows are
   * left out (see {@link #quarantine}).
   */
  public List<Instance> awaitingDecision(int limit) {
    return dsl.selectFrom(TASK_INSTANCE)
        .where(
            Sql.statusIn(
                TASK_INSTANCE.STATUS, List.of(InstanceStatus.FAILED, InstanceStatus.TIMEOUT)))
        // The same predicate as the partial index's (V11), so that the scan reads only it.
        .and(TASK_INSTANCE.QUARANTINED_AT.isNull())
        .orderBy(TASK_INSTANCE.UPDATED_AT, TASK_INSTANCE.ID)
        .limit(limit)
        .fetch()
        .map(InstanceRows::toInstance);
  }

  /** FAILED/TIMEOUT → RETRY_WAIT, fenced by attempt, stamping the time and the policy version. */
  public boolean scheduleRetry(
      Instance failed,
      Instant nextAttemptAt,
      Long policyVersion,
      String actor,
      String reason,
      Fence fence) {
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
                    .set(TASK_INSTANCE.POLICY_VERSION, policyVersion),
            Objects.requireNonNull(fence, "fence"))
        .isPresent();
  }

  /**
   * FAILED/TIMEOUT → DEAD, fenced by attempt.
   *
   * @param alerted whether the DEAD is already reported through every channel there is (no alert
   *     webhook is configured, so the log line is all); otherwise {@code alerted_at} stays empty
   *     and the alert outbox sends it ({@link #unalertedDead})
   */
  public boolean markDead(
      Instance failed,
      Long policyVersion,
      String actor,
      String reason,
      boolean alerted,
      Fence fence) {
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
                    .set(TASK_INSTANCE.FAIL_REASON, Outcome.clip(reason))
                    .set(
                        TASK_INSTANCE.ALERTED_AT,
                        alerted ? Sql.NOW : DSL.val((Instant) null, SQLDataType.INSTANT)),
            Objects.requireNonNull(fence, "fence"))
        .isPresent();
  }

  /**
   * Sets a row aside that {@code scanner} cannot handle: a row whose handling fails in a way no
   * retry can fix (its retry decision cannot be made, or making it throws; its alert cannot be
   * written). Marks it {@code quarantined_at} (fenced by its status and attempt, so a row that
   * moved on meanwhile is left alone) and records why as a decision in its event log, in one
   * transaction. A quarantined row stays in its status and out of every scan batch until an
   * operator clears the mark ({@link OperatorStore#clearQuarantine}).
   *
   * @return whether this call set the mark (false when the row moved on or was marked already)
   * @throws FencedException when {@code fence} is no longer current; nothing was written
   */
  public boolean quarantine(
      Instance row, String scanner, String problem, String actor, Fence fence) {
    Objects.requireNonNull(fence, "fence");
    String reason =
        Outcome.clip(
            "quarantined by the "
                + scanner
                + " scanner, out of its batches until an operator clears it: "
                + problem);
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          int marked =
              tx.update(TASK_INSTANCE)
                  .set(TASK_INSTANCE.QUARANTINED_AT, Sql.NOW)
                  .where(TASK_INSTANCE.ID.eq(row.id()))
                  .and(TASK_INSTANCE.STATUS.eq(row.status().name()))
                  .and(TASK_INSTANCE.ATTEMPT.eq(row.attempt()))
                  .and(TASK_INSTANCE.QUARANTINED_AT.isNull())
                  .and(Fences.current(fence))
                  .execute();
          if (marked == 0) {
            Fences.checkAfterNoOp(tx, fence, "quarantine of instance " + row.id());
            return false;
          }
          EventRows.insertDecisions(
              tx, List.of(new Decision(row.taskId(), row.windowKey(), row.id(), actor, reason)));
          return true;
        });
  }

  /**
   * DEAD instances whose alert is still to send ({@code alerted_at} empty, not quarantined), oldest
   * death first, with the status and reason of their last failure from the event log.
   */
  public List<DeadAlert> unalertedDead(int limit) {
    if (limit <= 0) {
      return List.of();
    }
    List<Instance> dead =
        dsl.selectFrom(TASK_INSTANCE)
            .where(Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.DEAD))
            // The predicate of the outbox's partial index (V11).
            .and(TASK_INSTANCE.ALERTED_AT.isNull())
            .and(TASK_INSTANCE.QUARANTINED_AT.isNull())
            .orderBy(TASK_INSTANCE.FINISHED_AT, TASK_INSTANCE.ID)
            .limit(limit)
            .fetch()
            .map(InstanceRows::toInstance);
    if (dead.isEmpty()) {
      return List.of();
    }
    // The last failure of each, through the event table's window index.
    Map<Long, InstanceEventRecord> lastFailure = new HashMap<>();
    dsl.selectFrom(INSTANCE_EVENT)
        .where(
            DSL.row(INSTANCE_EVENT.TASK_ID, INSTANCE_EVENT.WINDOW_KEY, INSTANCE_EVENT.INSTANCE_ID)
                .in(dead.stream().map(i -> DSL.row(i.taskId(), i.windowKey(), i.id())).toList()))
        .and(INSTANCE_EVENT.KIND.eq(InstanceEvent.Kind.TRANSITION.name()))
        .and(
            Sql.statusIn(
                INSTANCE_EVENT.TO_STATUS, List.of(InstanceStatus.FAILED, InstanceStatus.TIMEOUT)))
        .orderBy(INSTANCE_EVENT.ID)
        .fetch()
        .forEach(e -> lastFailure.put(e.getInstanceId(), e));
    return dead.stream()
        .map(
            i -> {
              InstanceEventRecord e = lastFailure.get(i.id());
              return e == null
                  ? new DeadAlert(i, null, null)
                  : new DeadAlert(i, InstanceStatus.valueOf(e.getToStatus()), e.getReason());
            })
        .toList();
  }

  /** DEAD instances whose alert is still to send (not quarantined). */
  public int countUnalerted() {
    return dsl.fetchCount(
        TASK_INSTANCE,
        Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.DEAD)
            .and(TASK_INSTANCE.ALERTED_AT.isNull())
            .and(TASK_INSTANCE.QUARANTINED_AT.isNull()));
  }

  /**
   * Records that the alert of DEAD instance {@code id} was acknowledged: {@code alerted_at = now}
   * if it is still empty.
   *
   * @return whether this call stamped it (false when it was stamped already)
   * @throws FencedException when {@code fence} is no longer current; nothing was written
   */
  public boolean markAlerted(long id, Fence fence) {
    Objects.requireNonNull(fence, "fence");
    int stamped =
        dsl.update(TASK_INSTANCE)
            .set(TASK_INSTANCE.ALERTED_AT, Sql.NOW)
            .where(TASK_INSTANCE.ID.eq(id))
            .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.DEAD.name()))
            .and(TASK_INSTANCE.ALERTED_AT.isNull())
            .and(Fences.current(fence))
            .execute();
    if (stamped == 0) {
      Fences.checkAfterNoOp(dsl, fence, "alert stamp of instance " + id);
    }
    return stamped == 1;
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
    return stranded(undispatchedAfter, redispatchAfter, limit, Undispatched.SCAN_LIMIT);
  }

  /** As above, reading at most {@code scanLimit} never-dispatched entries (tests set it low). */
  List<Instance> stranded(
      Duration undispatchedAfter, Duration redispatchAfter, int limit, int scanLimit) {
    if (limit <= 0) {
      return List.of();
    }
    // The condition stranded(undispatchedAfter, redispatchAfter) states, split between the two
    // parts of the dispatch index.
    return Undispatched.read(
        dsl,
        scanLimit,
        limit,
        first ->
            first
                .field(TASK_INSTANCE.RETRY_COUNT)
                .gt(0)
                .or(first.field(TASK_INSTANCE.CREATED_AT).lt(Sql.ago(undispatchedAfter))),
        TASK_INSTANCE
            .DISPATCHED_AT
            .lt(Sql.ago(redispatchAfter))
            .and(Serving.servable(TASK_INSTANCE.TASK_ID)));
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
      Collection<Long> ids, Duration undispatchedAfter, Duration redispatchAfter, Fence fence) {
    Objects.requireNonNull(fence, "fence");
    if (ids.isEmpty()) {
      return List.of();
    }
    List<Instance> claimed =
        claimForDispatchQuery(ids, undispatchedAfter, redispatchAfter, fence)
            .fetch()
            .map(InstanceRows::toInstance);
    if (claimed.isEmpty()) {
      Fences.checkAfterNoOp(dsl, fence, "dispatch claim of " + ids.size() + " instance(s)");
    }
    return claimed;
  }

  /** The statement of {@link #claimForDispatch} (a test reads its plan). */
  UpdateResultStep<TaskInstanceRecord> claimForDispatchQuery(
      Collection<Long> ids, Duration undispatchedAfter, Duration redispatchAfter, Fence fence) {
    return dsl.update(TASK_INSTANCE)
        .set(TASK_INSTANCE.DISPATCHED_AT, Sql.NOW)
        .from(Sql.idTable(ids))
        .where(TASK_INSTANCE.ID.eq(Sql.ID_COLUMN))
        .and(stranded(undispatchedAfter, redispatchAfter))
        .and(Fences.current(fence))
        .returning();
  }

  /**
   * Clears {@code dispatched_at} of PENDING instances whose message Kafka did not acknowledge, so
   * the next scan tries them again instead of waiting for the re-dispatch age.
   */
  public int unmarkDispatched(Collection<Long> ids, Fence fence) {
    Objects.requireNonNull(fence, "fence");
    if (ids.isEmpty()) {
      return 0;
    }
    int unmarked = unmarkQuery(ids, fence).execute();
    if (unmarked == 0) {
      Fences.checkAfterNoOp(dsl, fence, "dispatch unmark of " + ids.size() + " instance(s)");
    }
    return unmarked;
  }

  /** The statement of {@link #unmarkDispatched} (a test reads its plan). */
  Query unmarkQuery(Collection<Long> ids, Fence fence) {
    return dsl.update(TASK_INSTANCE)
        .set(TASK_INSTANCE.DISPATCHED_AT, (Instant) null)
        .from(Sql.idTable(ids))
        .where(TASK_INSTANCE.ID.eq(Sql.ID_COLUMN))
        .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.PENDING.name()))
        .and(Fences.current(fence));
  }

  /**
   * Stamps {@code dispatched_at} on the promoted instances among {@code ids} that are still
   * PENDING, once Kafka acknowledged their ids; rows another transaction holds are skipped.
   *
   * @return the rows stamped
   * @throws FencedException when {@code fence} is no longer current; nothing was stamped
   */
  public int markDispatched(Collection<Long> ids, Fence fence) {
    Objects.requireNonNull(fence, "fence");
    int stamped = DispatchStamp.mark(dsl, ids, fence);
    if (stamped == 0 && !ids.isEmpty()) {
      Fences.checkAfterNoOp(dsl, fence, "dispatch stamp of " + ids.size() + " instance(s)");
    }
    return stamped;
  }
}
