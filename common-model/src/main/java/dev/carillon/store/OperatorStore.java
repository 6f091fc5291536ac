package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.INSTANCE_CHECKPOINT;
import static dev.carillon.store.jooq.Tables.INSTANCE_CHECKPOINT_HISTORY;
import static dev.carillon.store.jooq.Tables.INSTANCE_EFFECT;
import static dev.carillon.store.jooq.Tables.INSTANCE_EFFECT_HISTORY;
import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT_HISTORY;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE_HISTORY;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.resume.EffectRecord;
import dev.carillon.model.resume.RerunMode;
import dev.carillon.model.resume.SavedCheckpoint;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * Instances as an operator sees and changes them ({@code schedctl get}, {@code describe}, {@code
 * why}, {@code rerun}, {@code cancel}): reads of instances and their history, and the two changes
 * an operator makes by hand. Each change is a compare-and-set fenced by the status and attempt the
 * operator was shown, so that a change that raced with a worker or the retry service is refused
 * rather than applied to a row the operator has not seen. New windows (backfills, manual runs) are
 * created through {@link WindowStore}.
 *
 * <p>Thread-safe; every method is one statement or one transaction.
 */
public final class OperatorStore {
  private final DSLContext dsl;

  public OperatorStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /** The instance with id {@code id}, if it exists (archived instances do not). */
  public Optional<Instance> find(long id) {
    return dsl.selectFrom(TASK_INSTANCE)
        .where(TASK_INSTANCE.ID.eq(id))
        .fetchOptional()
        .map(InstanceRows::toInstance);
  }

  /** The instance of one window of one task, if it was created (and not archived). */
  public Optional<Instance> findByWindow(String taskId, String windowKey) {
    return dsl.selectFrom(TASK_INSTANCE)
        .where(TASK_INSTANCE.TASK_ID.eq(taskId))
        .and(TASK_INSTANCE.WINDOW_KEY.eq(windowKey))
        .fetchOptional()
        .map(InstanceRows::toInstance);
  }

  /**
   * Instances filtered for operators, newest scheduled first, at most {@code limit}.
   *
   * @param taskId only this task's, or null for every task
   * @param status only those in this status, or null for any
   * @param since only those scheduled at or after this instant, or null for any time
   */
  public List<Instance> list(String taskId, InstanceStatus status, Instant since, int limit) {
    Condition c = DSL.noCondition();
    if (taskId != null) {
      c = c.and(TASK_INSTANCE.TASK_ID.eq(taskId));
    }
    if (status != null) {
      c = c.and(TASK_INSTANCE.STATUS.eq(status.name()));
    }
    if (since != null) {
      c = c.and(TASK_INSTANCE.SCHEDULED_AT.ge(since));
    }
    return dsl.selectFrom(TASK_INSTANCE)
        .where(c)
        .orderBy(TASK_INSTANCE.SCHEDULED_AT.desc(), TASK_INSTANCE.ID.desc())
        .limit(limit)
        .fetch()
        .map(InstanceRows::toInstance);
  }

  /**
   * One page of the instances that match {@code filter}, newest scheduled first (ties by id, newest
   * first), after {@code after}: keyset pagination on {@code (scheduled_at, id)}, which the index
   * of migration V10 serves in order, and for one task V22's {@code (task_id, scheduled_at, id)} (a
   * page reads its own rows, not every row the task had).
   *
   * @param after the last row of the previous page, or null for the first page
   * @param limit the most rows returned
   */
  public List<Instance> page(InstanceFilter filter, InstancePosition after, int limit) {
    Condition c = DSL.noCondition();
    if (filter.taskId() != null) {
      c = c.and(TASK_INSTANCE.TASK_ID.eq(filter.taskId()));
    }
    if (!filter.statuses().isEmpty()) {
      c = c.and(TASK_INSTANCE.STATUS.in(filter.statuses().stream().map(Enum::name).toList()));
    }
    if (!filter.origins().isEmpty()) {
      c = c.and(TASK_INSTANCE.ORIGIN.in(filter.origins().stream().map(Enum::name).toList()));
    }
    if (filter.from() != null) {
      c = c.and(TASK_INSTANCE.SCHEDULED_AT.ge(filter.from()));
    }
    if (filter.to() != null) {
      c = c.and(TASK_INSTANCE.SCHEDULED_AT.lt(filter.to()));
    }
    if (filter.failReason() != null) {
      c =
          c.and(
              filter.failReason().isEmpty()
                  ? TASK_INSTANCE.FAIL_REASON.isNull()
                  : TASK_INSTANCE.FAIL_REASON.eq(filter.failReason()));
    }
    if (after != null) {
      c =
          c.and(
              DSL.row(TASK_INSTANCE.SCHEDULED_AT, TASK_INSTANCE.ID)
                  .lt(
                      DSL.row(
                          DSL.val(after.scheduledAt(), TASK_INSTANCE.SCHEDULED_AT),
                          DSL.val(after.id()))));
    }
    return dsl.selectFrom(TASK_INSTANCE)
        .where(c)
        .orderBy(TASK_INSTANCE.SCHEDULED_AT.desc(), TASK_INSTANCE.ID.desc())
        .limit(limit)
        .fetch()
        .map(InstanceRows::toInstance);
  }

  /** The instances of {@code taskId} that have not finished ({@link InstanceStatus#LIVE}). */
  public List<Instance> live(String taskId) {
    return dsl.selectFrom(TASK_INSTANCE)
        .where(TASK_INSTANCE.TASK_ID.eq(taskId))
        // Literal statuses, so that even a generic plan reads ix_task_instance_live (V8).
        .and(Sql.statusIn(TASK_INSTANCE.STATUS, InstanceStatus.LIVE))
        .orderBy(TASK_INSTANCE.ID)
        .fetch()
        .map(InstanceRows::toInstance);
  }

  /**
   * The most recently finished instance of each of {@code taskIds} that has one: how each task's
   * last run ended. One statement whatever the number of tasks: for each task, one descent from the
   * newest end of {@code ix_task_instance_ended} (V21), however many runs it has had.
   */
  public Map<String, Instance> lastFinished(Collection<String> taskIds) {
    if (taskIds.isEmpty()) {
      return Map.of();
    }
    Table<?> tasks =
        DSL.table(
            "unnest({0}::varchar[]) as tasks(task_id)",
            DSL.val(taskIds.stream().distinct().toArray(String[]::new)));
    Table<?> last =
        DSL.lateral(
                DSL.selectFrom(TASK_INSTANCE)
                    .where(
                        TASK_INSTANCE.TASK_ID.eq(
                            DSL.field(DSL.name("tasks", "task_id"), String.class)))
                    // Literal statuses, so that even a generic plan matches the index's predicate.
                    .and(Sql.statusIn(TASK_INSTANCE.STATUS, InstanceStatus.FINISHED))
                    .and(TASK_INSTANCE.FINISHED_AT.isNotNull())
                    .orderBy(TASK_INSTANCE.FINISHED_AT.desc(), TASK_INSTANCE.ID.desc())
                    .limit(1))
            .as("last");
    Map<String, Instance> out = new HashMap<>();
    dsl.select(last.fields())
        .from(tasks)
        .crossJoin(last)
        .fetchInto(TASK_INSTANCE)
        .forEach(r -> out.put(r.getTaskId(), InstanceRows.toInstance(r)));
    return out;
  }

  /**
   * The events of one live instance, oldest first. Read through its window, the one index of the
   * event table besides its key: an index on {@code instance_id} would be maintained by every event
   * write (three per run) for reads like this one, which the window index serves as well.
   */
  public List<InstanceEvent> events(long instanceId) {
    return dsl.select(INSTANCE_EVENT.fields())
        .from(INSTANCE_EVENT)
        .join(TASK_INSTANCE)
        .on(INSTANCE_EVENT.TASK_ID.eq(TASK_INSTANCE.TASK_ID))
        .and(INSTANCE_EVENT.WINDOW_KEY.eq(TASK_INSTANCE.WINDOW_KEY))
        .where(TASK_INSTANCE.ID.eq(instanceId))
        .and(INSTANCE_EVENT.INSTANCE_ID.eq(instanceId))
        .orderBy(INSTANCE_EVENT.ID)
        .fetchInto(INSTANCE_EVENT)
        .map(EventRows::toEvent);
  }

  /**
   * Every event about one window, including decisions that created nothing, live and archived
   * alike, oldest first: an archived event keeps its id, so one order holds both. Both tables are
   * read through their window index.
   */
  public List<InstanceEvent> windowEvents(String taskId, String windowKey) {
    return dsl.select(INSTANCE_EVENT.fields())
        .from(INSTANCE_EVENT)
        .where(INSTANCE_EVENT.TASK_ID.eq(taskId))
        .and(INSTANCE_EVENT.WINDOW_KEY.eq(windowKey))
        .unionAll(
            DSL.select(historyFields())
                .from(INSTANCE_EVENT_HISTORY)
                .where(INSTANCE_EVENT_HISTORY.TASK_ID.eq(taskId))
                .and(INSTANCE_EVENT_HISTORY.WINDOW_KEY.eq(windowKey)))
        .orderBy(DSL.field(DSL.name(INSTANCE_EVENT.ID.getName())))
        .fetchInto(INSTANCE_EVENT)
        .map(EventRows::toEvent);
  }

  /** The history table's columns named and ordered as the live event table's. */
  private static List<org.jooq.Field<?>> historyFields() {
    return java.util.Arrays.stream(INSTANCE_EVENT.fields())
        .<org.jooq.Field<?>>map(f -> INSTANCE_EVENT_HISTORY.field(f.getName()))
        .toList();
  }

  /**
   * The instance with id {@code id} from the history tables, where the archiver moved it, with the
   * time it was moved; empty when it is live or never existed.
   */
  public Optional<ArchivedInstance> findArchived(long id) {
    return dsl.selectFrom(TASK_INSTANCE_HISTORY)
        .where(TASK_INSTANCE_HISTORY.ID.eq(id))
        .fetchOptional()
        .map(
            r ->
                new ArchivedInstance(
                    InstanceRows.toInstance(r.into(TASK_INSTANCE)), r.getArchivedAt()));
  }

  /** When the instance of one window was archived; empty when it is live or was never created. */
  public Optional<java.time.Instant> windowArchivedAt(String taskId, String windowKey) {
    return dsl.select(TASK_INSTANCE_HISTORY.ARCHIVED_AT)
        .from(TASK_INSTANCE_HISTORY)
        .where(TASK_INSTANCE_HISTORY.TASK_ID.eq(taskId))
        .and(TASK_INSTANCE_HISTORY.WINDOW_KEY.eq(windowKey))
        .fetchOptional(TASK_INSTANCE_HISTORY.ARCHIVED_AT);
  }

  /**
   * The events of one archived instance, oldest first, read through its window as {@link #events}.
   */
  public List<InstanceEvent> archivedEvents(long instanceId) {
    return dsl.select(historyFields())
        .from(INSTANCE_EVENT_HISTORY)
        .join(TASK_INSTANCE_HISTORY)
        .on(INSTANCE_EVENT_HISTORY.TASK_ID.eq(TASK_INSTANCE_HISTORY.TASK_ID))
        .and(INSTANCE_EVENT_HISTORY.WINDOW_KEY.eq(TASK_INSTANCE_HISTORY.WINDOW_KEY))
        .where(TASK_INSTANCE_HISTORY.ID.eq(instanceId))
        .and(INSTANCE_EVENT_HISTORY.INSTANCE_ID.eq(instanceId))
        .orderBy(INSTANCE_EVENT_HISTORY.ID)
        .fetchInto(INSTANCE_EVENT)
        .map(EventRows::toEvent);
  }

  /** {@link #checkpoints} of an archived instance, from the history table. */
  public List<SavedCheckpoint> archivedCheckpoints(long instanceId) {
    return dsl.selectFrom(INSTANCE_CHECKPOINT_HISTORY)
        .where(INSTANCE_CHECKPOINT_HISTORY.INSTANCE_ID.eq(instanceId))
        .orderBy(INSTANCE_CHECKPOINT_HISTORY.ATTEMPT)
        .fetch()
        .map(r -> ResumeStore.toCheckpoint(r.into(INSTANCE_CHECKPOINT)));
  }

  /** {@link #effects} of an archived instance, from the history table. */
  public List<EffectRecord> archivedEffects(long instanceId) {
    return dsl.selectFrom(INSTANCE_EFFECT_HISTORY)
        .where(INSTANCE_EFFECT_HISTORY.INSTANCE_ID.eq(instanceId))
        .orderBy(INSTANCE_EFFECT_HISTORY.ATTEMPT, INSTANCE_EFFECT_HISTORY.EFFECT_KEY)
        .fetch()
        .map(r -> ResumeStore.toEffect(r.into(INSTANCE_EFFECT)));
  }

  /**
   * The last checkpoint of each attempt of one instance that saved any, oldest attempt first (see
   * {@link ResumeStore}).
   */
  public List<SavedCheckpoint> checkpoints(long instanceId) {
    return dsl.selectFrom(INSTANCE_CHECKPOINT)
        .where(INSTANCE_CHECKPOINT.INSTANCE_ID.eq(instanceId))
        .orderBy(INSTANCE_CHECKPOINT.ATTEMPT)
        .fetch()
        .map(ResumeStore::toCheckpoint);
  }

  /**
   * Every attempt's record of every effect of one instance, by attempt, then key (see {@link
   * ResumeStore}).
   */
  public List<EffectRecord> effects(long instanceId) {
    return ResumeStore.effects(dsl, instanceId);
  }

  /** Counts instances by status, for metrics and tests. */
  public Map<InstanceStatus, Integer> countByStatus(String taskId) {
    Condition c = taskId == null ? DSL.noCondition() : TASK_INSTANCE.TASK_ID.eq(taskId);
    Map<InstanceStatus, Integer> counts = new EnumMap<>(InstanceStatus.class);
    dsl.select(TASK_INSTANCE.STATUS, DSL.count())
        .from(TASK_INSTANCE)
        .where(c)
        .groupBy(TASK_INSTANCE.STATUS)
        .fetch()
        .forEach(r -> counts.put(InstanceStatus.valueOf(r.value1()), r.value2()));
    return counts;
  }

  /**
   * Brings a finished instance ({@link InstanceStatus#FINISHED}) back to PENDING for another run.
   * The origin and the attempt counter are kept (the attempt is the workers' fencing token and must
   * only grow); the retry budget, the non-retryable flag, the lease, the last result and the
   * dispatch stamp are cleared, so the new run is retried by the task's policy like a fresh one and
   * the stranded-PENDING scan republishes it if the caller cannot.
   *
   * <p>The attempts' checkpoints and effects are kept ({@link RerunMode#RESUME}): the new run
   * resumes from the last checkpoint and does not repeat effects recorded as done.
   *
   * @param seen the instance as the operator saw it; its status and attempt fence the change
   * @return the instance as the re-run left it, or empty when the row changed meanwhile (nothing
   *     was written)
   * @throws dev.carillon.model.instance.IllegalTransitionException when {@code seen} is not
   *     finished
   */
  public Optional<Instance> rerun(Instance seen, String actor, String reason) {
    return rerun(seen, actor, reason, RerunMode.RESUME);
  }

  /**
   * {@link #rerun(Instance, String, String)}, choosing what happens to the attempts' checkpoints
   * and effects. {@link RerunMode#FROM_SCRATCH} deletes them in the re-run's transaction, and the
   * re-run's event says how many checkpoints and which effects were discarded.
   */
  public Optional<Instance> rerun(Instance seen, String actor, String reason, RerunMode mode) {
    Objects.requireNonNull(seen, "seen");
    Objects.requireNonNull(mode, "mode");
    return CompareAndSet.rerun(
        dsl,
        seen,
        actor,
        reason,
        mode == RerunMode.FROM_SCRATCH
            ? (tx, moved) -> discardProgress(tx, moved.id())
            : CompareAndSet.AfterMove.NONE,
        null);
  }

  /** The most effect keys a from-scratch re-run's event names. */
  static final int MAX_KEYS_NAMED = 10;

  /** Deletes an instance's checkpoints and effects; says what went, for the re-run's event. */
  private static String discardProgress(DSLContext tx, long instanceId) {
    int checkpoints =
        tx.deleteFrom(INSTANCE_CHECKPOINT)
            .where(INSTANCE_CHECKPOINT.INSTANCE_ID.eq(instanceId))
            .execute();
    List<String> keys =
        tx
            .deleteFrom(INSTANCE_EFFECT)
            .where(INSTANCE_EFFECT.INSTANCE_ID.eq(instanceId))
            .returning(INSTANCE_EFFECT.EFFECT_KEY)
            .fetch(INSTANCE_EFFECT.EFFECT_KEY)
            .stream()
            .distinct()
            .sorted()
            .toList();
    String named =
        keys.size() <= MAX_KEYS_NAMED
            ? String.join(", ", keys)
            : String.join(", ", keys.subList(0, MAX_KEYS_NAMED))
                + " and "
                + (keys.size() - MAX_KEYS_NAMED)
                + " more";
    return "; from scratch: discarded "
        + checkpoints
        + (checkpoints == 1 ? " checkpoint" : " checkpoints")
        + " and "
        + keys.size()
        + (keys.size() == 1 ? " effect" : " effects")
        + (keys.isEmpty() ? "" : " (" + named + ")");
  }

  /**
   * Stops an instance that has not finished: {@code → CANCELLED}, lease and retry time cleared. A
   * RUNNING instance's worker notices on its next heartbeat (which then updates no row) and stops
   * the run.
   *
   * @param seen the instance as the operator saw it; its status and attempt fence the change
   * @return the instance as the cancellation left it, or empty when the row changed meanwhile
   *     (nothing was written)
   * @throws dev.carillon.model.instance.IllegalTransitionException when {@code seen} cannot be
   *     cancelled from its status
   */
  public Optional<Instance> cancel(Instance seen, String actor, String reason) {
    Objects.requireNonNull(seen, "seen");
    return CompareAndSet.move(
        dsl,
        seen.id(),
        seen.status(),
        seen.attempt(),
        InstanceStatus.CANCELLED,
        actor,
        reason,
        u ->
            u.set(TASK_INSTANCE.LEASE_UNTIL, (Instant) null)
                .set(TASK_INSTANCE.NEXT_ATTEMPT_AT, (Instant) null));
  }

  /** Instances set aside by a scanner ({@link RetryStore#quarantine}), oldest mark first. */
  public List<Instance> quarantined(int limit) {
    return dsl.selectFrom(TASK_INSTANCE)
        .where(TASK_INSTANCE.QUARANTINED_AT.isNotNull())
        .orderBy(TASK_INSTANCE.QUARANTINED_AT, TASK_INSTANCE.ID)
        .limit(limit)
        .fetch()
        .map(InstanceRows::toInstance);
  }

  /**
   * Clears the quarantine mark of instance {@code id} (after fixing what made it undecidable), so
   * that the scanners take it up again, and records who did in its event log.
   *
   * @return whether it was quarantined (false: nothing to clear, nothing written)
   */
  public boolean clearQuarantine(long id, String actor, String reason) {
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          Optional<Instance> cleared =
              tx.update(TASK_INSTANCE)
                  .set(TASK_INSTANCE.QUARANTINED_AT, (Instant) null)
                  .where(TASK_INSTANCE.ID.eq(id))
                  .and(TASK_INSTANCE.QUARANTINED_AT.isNotNull())
                  .returning()
                  .fetchOptional()
                  .map(InstanceRows::toInstance);
          cleared.ifPresent(
              i ->
                  EventRows.insertDecisions(
                      tx,
                      List.of(
                          new Decision(
                              i.taskId(),
                              i.windowKey(),
                              i.id(),
                              actor,
                              Outcome.clip("quarantine cleared: " + reason)))));
          return cleared.isPresent();
        });
  }
}
