package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.jooq.tables.records.TaskInstanceRecord;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.UpdateSetMoreStep;
import org.jooq.impl.DSL;

/**
 * The one compare-and-set that every single-instance status change goes through: {@code UPDATE
 * task_instance SET status = to ... WHERE id = ? AND status = from [AND attempt = ?]}, checked
 * against {@link InstanceStatus} first, with its event row in the same transaction. Zero rows means
 * another actor won, and the caller backs off. The batched statements of the worker and the retry
 * service (claims, ends, expiries, promotions) check the same table and fence the same way, each in
 * one statement of its own.
 */
final class CompareAndSet {
  private CompareAndSet() {}

  /** Extra columns a transition sets besides status and updated_at. */
  @FunctionalInterface
  interface Changes {
    Changes NONE = u -> u;

    UpdateSetMoreStep<TaskInstanceRecord> apply(UpdateSetMoreStep<TaskInstanceRecord> update);
  }

  /**
   * A re-run's changes ({@code → PENDING} from a finished status), the same whoever asks for it:
   * see {@link OperatorStore#rerun}. A quarantine mark goes too: it was about the attempt that
   * failed, and left on the re-run it would keep that run's failure out of every scan.
   */
  static final Changes RERUN =
      u ->
          u.set(TASK_INSTANCE.RETRY_COUNT, 0)
              .set(TASK_INSTANCE.NON_RETRYABLE, false)
              .set(TASK_INSTANCE.NEXT_ATTEMPT_AT, (Instant) null)
              .set(TASK_INSTANCE.LEASE_UNTIL, (Instant) null)
              .set(TASK_INSTANCE.WORKER_ID, (String) null)
              .set(TASK_INSTANCE.DISPATCHED_AT, (Instant) null)
              .set(TASK_INSTANCE.STARTED_AT, (Instant) null)
              .set(TASK_INSTANCE.FINISHED_AT, (Instant) null)
              .set(TASK_INSTANCE.FAIL_REASON, (String) null)
              .set(TASK_INSTANCE.RESULT_SUMMARY, (String) null)
              .set(TASK_INSTANCE.RESULT_TRUNCATED, false)
              .set(TASK_INSTANCE.RESULT_URI, (String) null)
              .set(TASK_INSTANCE.QUARANTINED_AT, (Instant) null);

  /**
   * More work a transition does in its transaction once the row moved (and only then), before its
   * event is written; returns text to add to the event's reason, or {@code null}.
   */
  @FunctionalInterface
  interface AfterMove {
    AfterMove NONE = (tx, moved) -> null;

    String apply(DSLContext tx, Instance moved);
  }

  /**
   * {@link #move(DSLContext, long, InstanceStatus, Integer, InstanceStatus, String, String,
   * Changes, AfterMove)} with nothing after the move.
   */
  static Optional<Instance> move(
      DSLContext dsl,
      long id,
      InstanceStatus from,
      Integer attempt,
      InstanceStatus to,
      String actor,
      String reason,
      Changes changes) {
    return move(dsl, id, from, attempt, to, actor, reason, changes, AfterMove.NONE);
  }

  /**
   * Moves instance {@code id} from {@code from} to {@code to} if it is still in {@code from} (and
   * at {@code attempt}), in its own transaction.
   *
   * @param attempt the fencing attempt, or {@code null} when the caller does not hold a claim
   * @param after more work in the same transaction once the row moved
   * @return the row as the change left it, or empty when another actor won (nothing was written)
   * @throws dev.carillon.model.instance.IllegalTransitionException when the state machine does not
   *     allow {@code from → to}; nothing is written
   */
  static Optional<Instance> move(
      DSLContext dsl,
      long id,
      InstanceStatus from,
      Integer attempt,
      InstanceStatus to,
      String actor,
      String reason,
      Changes changes,
      AfterMove after) {
    return move(dsl, id, from, attempt, to, actor, reason, changes, after, null);
  }

  /**
   * {@link #move(DSLContext, long, InstanceStatus, Integer, InstanceStatus, String, String,
   * Changes)} by a leader: the update is applied only while {@code fence} is current.
   *
   * @param fence the leader's fence, or {@code null} for a write any actor may make
   * @throws FencedException when {@code fence} is no longer current; nothing is written
   */
  static Optional<Instance> move(
      DSLContext dsl,
      long id,
      InstanceStatus from,
      Integer attempt,
      InstanceStatus to,
      String actor,
      String reason,
      Changes changes,
      Fence fence) {
    return move(dsl, id, from, attempt, to, actor, reason, changes, AfterMove.NONE, fence);
  }

  /**
   * The move itself: {@code after} runs in its transaction once the row moved, and {@code fence},
   * when given, must still be current for the update to apply.
   */
  private static Optional<Instance> move(
      DSLContext dsl,
      long id,
      InstanceStatus from,
      Integer attempt,
      InstanceStatus to,
      String actor,
      String reason,
      Changes changes,
      AfterMove after,
      Fence fence) {
    from.checkTransition(to);
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          Condition where = TASK_INSTANCE.ID.eq(id).and(TASK_INSTANCE.STATUS.eq(from.name()));
          if (attempt != null) {
            where = where.and(TASK_INSTANCE.ATTEMPT.eq(attempt));
          }
          if (fence != null) {
            where = where.and(Fences.current(fence));
          }
          var update =
              tx.update(TASK_INSTANCE)
                  .set(TASK_INSTANCE.STATUS, to.name())
                  .set(TASK_INSTANCE.UPDATED_AT, Sql.NOW);
          if (to.isFinished()) {
            update = update.set(TASK_INSTANCE.FINISHED_AT, Sql.NOW);
          }
          Optional<Instance> changed =
              changes
                  .apply(update)
                  .where(where)
                  .returning()
                  .fetchOptional()
                  .map(InstanceRows::toInstance);
          changed.ifPresent(
              i -> {
                String more = after.apply(tx, i);
                String why = more == null ? reason : reason + more;
                EventRows.insert(tx, List.of(EventRows.transition(i, from, actor, why)));
              });
          if (changed.isEmpty() && fence != null) {
            Fences.checkAfterNoOp(tx, fence, from + " -> " + to + " of instance " + id);
          }
          return changed;
        });
  }
}
