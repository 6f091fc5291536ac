package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.INSTANCE_CHECKPOINT;
import static dev.carillon.store.jooq.Tables.INSTANCE_EFFECT;

import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.resume.EffectRecord;
import dev.carillon.model.resume.EffectStart;
import dev.carillon.model.resume.ResumeRules;
import dev.carillon.model.resume.SavedCheckpoint;
import dev.carillon.store.jooq.tables.records.InstanceCheckpointRecord;
import dev.carillon.store.jooq.tables.records.InstanceEffectRecord;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * What a running attempt leaves for the attempts after it (issue 26): its checkpoints and the
 * effects it starts and records as done. The worker writes here on behalf of its agents; the next
 * attempt of the window reads here.
 *
 * <p><b>Fencing.</b> Every write renews the instance's lease with {@code UPDATE task_instance ...
 * WHERE id = ? AND attempt = ? AND status = 'RUNNING' AND worker_id = ?}, exactly the heartbeat's
 * condition and lease ({@code now() + timeout}), and writes its own row only when that update
 * matched: in one statement for a checkpoint and a done record, in one transaction (holding the
 * instance's row lock from the fence on) for the start of an effect. An attempt that no longer
 * holds its instance (a newer attempt claimed it, the retry service expired it, an operator
 * cancelled it, the worker released it) writes nothing and gets {@code false} or {@link
 * EffectStart.Fenced}.
 *
 * <p>Thread-safe; every method is one statement or one transaction.
 */
public final class ResumeStore {
  private final DSLContext dsl;

  public ResumeStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * Stores {@code stateJson} as attempt {@code lease.attempt()}'s checkpoint (replacing its
   * previous one) and renews the lease, if the instance is still RUNNING at that attempt on {@code
   * workerId}; otherwise writes nothing.
   *
   * @param stateJson checked by {@link ResumeRules#checkpointState}
   * @return when it was stored (the database's clock), or empty when the attempt is fenced out
   * @throws IllegalArgumentException when {@code stateJson} breaks the rule; nothing is written
   */
  public Optional<Instant> saveCheckpoint(Lease lease, String workerId, String stateJson) {
    ResumeRules.requireCheckpointState(stateJson);
    return dsl.resultQuery(
            "WITH fenced AS ("
                + FENCE
                + ")"
                + " INSERT INTO instance_checkpoint"
                + " (instance_id, attempt, state, saves, worker_id, saved_at)"
                + " SELECT id, attempt, {4}, 1, {3}, now() FROM fenced"
                + " ON CONFLICT (instance_id, attempt) DO UPDATE SET state = EXCLUDED.state,"
                + " saves = instance_checkpoint.saves + 1, worker_id = EXCLUDED.worker_id,"
                + " saved_at = EXCLUDED.saved_at"
                + " RETURNING saved_at",
            DSL.val(lease.instanceId()),
            DSL.val(lease.attempt()),
            DSL.val(InstanceStatus.RUNNING.name()),
            DSL.val(workerId),
            DSL.val(stateJson))
        .fetchOptional(0, Instant.class);
  }

  /**
   * The last checkpoint saved by an attempt of {@code instanceId} below {@code attempt}: the one of
   * the highest such attempt. Fencing makes that also the most recent one.
   */
  public Optional<SavedCheckpoint> lastCheckpointBefore(long instanceId, int attempt) {
    return dsl.selectFrom(INSTANCE_CHECKPOINT)
        .where(INSTANCE_CHECKPOINT.INSTANCE_ID.eq(instanceId))
        .and(INSTANCE_CHECKPOINT.ATTEMPT.lt(attempt))
        .orderBy(INSTANCE_CHECKPOINT.ATTEMPT.desc())
        .limit(1)
        .fetchOptional()
        .map(ResumeStore::toCheckpoint);
  }

  /**
   * Every attempt's record of every effect of {@code instanceId}, by attempt, then key: what an
   * agent outside the worker's JVM is told of the effects already done when it starts.
   */
  public List<EffectRecord> effectsOf(long instanceId) {
    return effects(dsl, instanceId);
  }

  /** The effect rows of one instance, by attempt, then key; shared with {@link OperatorStore}. */
  static List<EffectRecord> effects(DSLContext dsl, long instanceId) {
    return dsl.selectFrom(INSTANCE_EFFECT)
        .where(INSTANCE_EFFECT.INSTANCE_ID.eq(instanceId))
        .orderBy(INSTANCE_EFFECT.ATTEMPT, INSTANCE_EFFECT.EFFECT_KEY)
        .fetch()
        .map(ResumeStore::toEffect);
  }

  /**
   * Asks to start effect {@code key} for attempt {@code lease.attempt()}, in one transaction: the
   * fence (which renews the lease and holds the instance's row until the commit, so no other
   * attempt can be claimed meanwhile), the effect's records, and this attempt's start when no
   * record is done.
   *
   * @return {@link EffectStart.AlreadyDone} with the first done record (nothing written besides the
   *     lease), {@link EffectStart.Started} once this attempt's start is recorded, or {@link
   *     EffectStart.Fenced} when the attempt no longer holds the instance (nothing written)
   * @throws IllegalArgumentException when {@code key} breaks {@link ResumeRules#effectKey}
   */
  public EffectStart startEffect(Lease lease, String workerId, String key) {
    ResumeRules.requireEffectKey(key);
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          boolean holds =
              tx.resultQuery(
                      FENCE,
                      DSL.val(lease.instanceId()),
                      DSL.val(lease.attempt()),
                      DSL.val(InstanceStatus.RUNNING.name()),
                      DSL.val(workerId))
                  .fetchOptional()
                  .isPresent();
          if (!holds) {
            return new EffectStart.Fenced();
          }
          List<EffectRecord> records =
              tx.selectFrom(INSTANCE_EFFECT)
                  .where(INSTANCE_EFFECT.INSTANCE_ID.eq(lease.instanceId()))
                  .and(INSTANCE_EFFECT.EFFECT_KEY.eq(key))
                  .fetch()
                  .map(ResumeStore::toEffect);
          Optional<EffectRecord> done =
              records.stream()
                  .filter(EffectRecord::done)
                  .min(
                      Comparator.comparing(EffectRecord::doneAt)
                          .thenComparingInt(EffectRecord::attempt));
          if (done.isPresent()) {
            return new EffectStart.AlreadyDone(done.get());
          }
          tx.insertInto(INSTANCE_EFFECT)
              .set(INSTANCE_EFFECT.INSTANCE_ID, lease.instanceId())
              .set(INSTANCE_EFFECT.EFFECT_KEY, key)
              .set(INSTANCE_EFFECT.ATTEMPT, lease.attempt())
              .set(INSTANCE_EFFECT.STARTS, 1)
              .set(INSTANCE_EFFECT.WORKER_ID, workerId)
              .set(INSTANCE_EFFECT.STARTED_AT, Sql.NOW)
              .onConflict(
                  INSTANCE_EFFECT.INSTANCE_ID, INSTANCE_EFFECT.EFFECT_KEY, INSTANCE_EFFECT.ATTEMPT)
              .doUpdate()
              .set(INSTANCE_EFFECT.STARTS, INSTANCE_EFFECT.STARTS.plus(1))
              .set(INSTANCE_EFFECT.STARTED_AT, Sql.NOW)
              .execute();
          return new EffectStart.Started(!records.isEmpty());
        });
  }

  /**
   * Records effect {@code key}, started by attempt {@code lease.attempt()}, as done with {@code
   * result}, and renews the lease, in one statement, if the instance is still RUNNING at that
   * attempt on {@code workerId}; otherwise writes nothing.
   *
   * @param result the effect's result, or {@code null}; checked by {@link ResumeRules#effectResult}
   * @return whether the record was written; {@code false} when the attempt is fenced out or never
   *     started the effect
   * @throws IllegalArgumentException when {@code result} breaks the rule; nothing is written
   */
  public boolean recordEffect(Lease lease, String workerId, String key, String result) {
    ResumeRules.effectResult(result)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException("result of effect '" + key + "' " + p);
            });
    return dsl.resultQuery(
            "WITH fenced AS ("
                + FENCE
                + ")"
                + " UPDATE instance_effect e SET done_at = now(), result = {4} FROM fenced"
                + " WHERE e.instance_id = fenced.id AND e.attempt = fenced.attempt"
                + " AND e.effect_key = {5} AND e.done_at IS NULL"
                + " RETURNING e.done_at",
            DSL.val(lease.instanceId()),
            DSL.val(lease.attempt()),
            DSL.val(InstanceStatus.RUNNING.name()),
            DSL.val(workerId),
            DSL.val(result, String.class),
            DSL.val(key))
        .fetchOptional()
        .isPresent();
  }

  /**
   * The fence and lease renewal every write here starts with: the heartbeat's condition and lease.
   * Binds {0} id, {1} attempt, {2} the RUNNING status, {3} the worker id. The status is a bound
   * value, not a literal: the statement finds its row by primary key (see {@link
   * Database#PRIMARY_KEY_PLANS}), not through a partial status index.
   */
  private static final String FENCE =
      "UPDATE task_instance SET lease_until = now() + (timeout_ms * interval '1 millisecond'),"
          + " updated_at = now()"
          + " WHERE id = {0} AND attempt = {1} AND status = {2} AND worker_id = {3}"
          + " RETURNING id, attempt";

  static SavedCheckpoint toCheckpoint(InstanceCheckpointRecord r) {
    return new SavedCheckpoint(
        r.getInstanceId(),
        r.getAttempt(),
        r.getState(),
        r.getSaves(),
        r.getWorkerId(),
        r.getSavedAt());
  }

  static EffectRecord toEffect(InstanceEffectRecord r) {
    return new EffectRecord(
        r.getInstanceId(),
        r.getEffectKey(),
        r.getAttempt(),
        r.getStarts(),
        r.getWorkerId(),
        r.getStartedAt(),
        r.getDoneAt(),
        r.getResult());
  }
}
