package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static dev.carillon.store.jooq.Tables.TASK_EVENT;
import static dev.carillon.store.jooq.Tables.TRIGGER_CURSOR;

import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.RunSpec;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TaskEvent;
import dev.carillon.store.jooq.tables.records.TaskDefinitionRecord;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.InsertResultStep;
import org.jooq.InsertSetMoreStep;
import org.jooq.impl.DSL;

/**
 * Task definitions and trigger cursors in domain words. Writes are all-or-nothing; reads validate
 * every row again, because a row may have been edited by hand.
 */
public final class TaskStore {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(TaskStore.class);

  private final DSLContext dsl;

  public TaskStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /** Definitions per upsert statement: 14 bind values each, well under PostgreSQL's 32,767. */
  static final int APPLY_CHUNK = 1_000;

  /** The actor recorded for changes made without a caller to name (tests, tools, bootstrap). */
  public static final String SYSTEM_ACTOR = "carillon";

  /** What an apply did to one definition. */
  public enum ApplyOutcome {
    /** The id was new. */
    CREATED,
    /** The stored definition differed and was replaced ({@code version + 1}). */
    CHANGED,
    /** The stored definition was identical; nothing was written. */
    UNCHANGED,
    /** The id had been deleted; the definition is live again ({@code version + 1}). */
    REVIVED
  }

  /** One definition of an apply: its id, its version afterwards, and what the apply did. */
  public record Applied(String id, long version, ApplyOutcome outcome) {}

  /**
   * {@link #apply} with {@link #SYSTEM_ACTOR}.
   *
   * @return the ids whose row was inserted, changed or revived, in the order given
   */
  public List<String> applyAll(List<TaskDefinition> defs) {
    return apply(defs, SYSTEM_ACTOR).stream()
        .filter(a -> a.outcome() != ApplyOutcome.UNCHANGED)
        .map(Applied::id)
        .toList();
  }

  /**
   * Inserts or updates every definition in one transaction, and records a {@link TaskEvent} with
   * {@code actor} for each one written. A definition whose content changed gets {@code version +
   * 1}; an unchanged one is left alone; a deleted one is revived ({@code deleted_at} cleared,
   * {@code version + 1}) even when its content is the same. The paused flag is operational state
   * and is only set on insert ({@code pause}/{@code resume} change it). When an id appears more
   * than once, the last definition given wins.
   *
   * <p>One multi-row upsert per {@value #APPLY_CHUNK} definitions, not one per definition: besides
   * the round trips, every statement on {@code task_definition} runs the change counter's trigger
   * (migrations V5, V6), once per statement rather than once per row.
   *
   * @return each distinct id once, in the order given, with its version and outcome
   */
  public List<Applied> apply(List<TaskDefinition> defs, String actor) {
    Map<String, TaskDefinition> byId = new LinkedHashMap<>();
    for (TaskDefinition d : defs) {
      byId.put(d.id(), d);
    }
    List<TaskDefinition> unique = new ArrayList<>(byId.values());
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          String[] ids = byId.keySet().toArray(String[]::new);
          // Read before the upsert to name each outcome (and to see which one-shots moved); the
          // upsert decides what is written.
          Map<String, Boolean> deletedBefore = new HashMap<>();
          Map<String, String> triggerBefore = new HashMap<>();
          tx.select(
                  TASK_DEFINITION.TASK_ID,
                  TASK_DEFINITION.DELETED_AT.isNotNull(),
                  TASK_DEFINITION.TRIGGER_KIND,
                  TASK_DEFINITION.SPEC)
              .from(TASK_DEFINITION)
              .where(TASK_DEFINITION.TASK_ID.in(DSL.select(unnestIds(ids))))
              .fetch()
              .forEach(
                  r -> {
                    deletedBefore.put(r.value1(), r.value2());
                    triggerBefore.put(r.value1(), r.value3() + " " + r.value4());
                  });
          Map<String, Long> written = new HashMap<>();
          for (int from = 0; from < unique.size(); from += APPLY_CHUNK) {
            List<TaskDefinition> chunk =
                unique.subList(from, Math.min(unique.size(), from + APPLY_CHUNK));
            InsertSetMoreStep<TaskDefinitionRecord> rows = null;
            for (TaskDefinition d : chunk) {
              rows =
                  (rows == null ? tx.insertInto(TASK_DEFINITION) : rows.newRecord())
                      .set(toRecord(d));
            }
            upsert(rows)
                .fetch()
                .forEach(
                    r ->
                        written.put(
                            r.get(TASK_DEFINITION.TASK_ID), r.get(TASK_DEFINITION.VERSION)));
          }
          Map<String, Long> unchanged = new HashMap<>();
          String[] notWritten =
              byId.keySet().stream().filter(id -> !written.containsKey(id)).toArray(String[]::new);
          if (notWritten.length > 0) {
            tx.select(TASK_DEFINITION.TASK_ID, TASK_DEFINITION.VERSION)
                .from(TASK_DEFINITION)
                .where(TASK_DEFINITION.TASK_ID.in(DSL.select(unnestIds(notWritten))))
                .fetch()
                .forEach(r -> unchanged.put(r.value1(), r.value2()));
          }
          List<Applied> out = new ArrayList<>(byId.size());
          List<TaskEventRows.Row> events = new ArrayList<>();
          for (String id : byId.keySet()) {
            Long version = written.get(id);
            if (version == null) {
              out.add(new Applied(id, unchanged.getOrDefault(id, 0L), ApplyOutcome.UNCHANGED));
              continue;
            }
            ApplyOutcome outcome =
                !deletedBefore.containsKey(id)
                    ? ApplyOutcome.CREATED
                    : deletedBefore.get(id) ? ApplyOutcome.REVIVED : ApplyOutcome.CHANGED;
            out.add(new Applied(id, version, outcome));
            events.add(
                new TaskEventRows.Row(
                    id, TaskEvent.Kind.valueOf(outcome.name()), version, actor, null));
          }
          TaskEventRows.insert(tx, events);
          forgetCursorsOfMovedOneShots(tx, byId, written.keySet(), triggerBefore);
          return out;
        });
  }

  /**
   * A one-shot whose instant an apply changed (or a task that became a one-shot) is evaluated from
   * just before its new instant, like a new task: its cursor is forgotten in the apply's
   * transaction. The cursor of the old trigger may already be past the new instant (a one-shot
   * moved to a time a few minutes ago, a cron task turned into a one-shot), and the trigger would
   * never evaluate it. The window's UNIQUE index still keeps a fire that already happened from
   * happening again.
   */
  private static void forgetCursorsOfMovedOneShots(
      DSLContext tx,
      Map<String, TaskDefinition> byId,
      Set<String> written,
      Map<String, String> triggerBefore) {
    List<String> moved = new ArrayList<>();
    for (String id : written) {
      TaskDefinition d = byId.get(id);
      String before = triggerBefore.get(id);
      if (d.trigger() instanceof AtTrigger
          && before != null
          && !before.equals(d.triggerKind().name() + " " + TaskRows.toRecord(d).getSpec())) {
        moved.add(id);
      }
    }
    if (!moved.isEmpty()) {
      tx.deleteFrom(TRIGGER_CURSOR)
          .where(TRIGGER_CURSOR.TASK_ID.in(DSL.select(unnestIds(moved.toArray(String[]::new)))))
          .execute();
    }
  }

  /**
   * The rows as an upsert that changes a stored definition only when its content differs or it was
   * deleted, and returns the ids it inserted or changed with their new versions.
   */
  private static InsertResultStep<TaskDefinitionRecord> upsert(
      InsertSetMoreStep<TaskDefinitionRecord> rows) {
    var t = TASK_DEFINITION;
    return rows.onConflict(t.TASK_ID)
        .doUpdate()
        .set(t.HANDLER, DSL.excluded(t.HANDLER))
        .set(t.QUEUE, DSL.excluded(t.QUEUE))
        .set(t.TRIGGER_KIND, DSL.excluded(t.TRIGGER_KIND))
        .set(t.CRON, DSL.excluded(t.CRON))
        .set(t.ZONE, DSL.excluded(t.ZONE))
        .set(t.WINDOW_KIND, DSL.excluded(t.WINDOW_KIND))
        .set(t.OVERLAP_POLICY, DSL.excluded(t.OVERLAP_POLICY))
        .set(t.CATCHUP_MS, DSL.excluded(t.CATCHUP_MS))
        .set(t.TIMEOUT_MS, DSL.excluded(t.TIMEOUT_MS))
        .set(t.RETRY_POLICY, DSL.excluded(t.RETRY_POLICY))
        .set(t.PARAMS, DSL.excluded(t.PARAMS))
        .set(t.SPEC, DSL.excluded(t.SPEC))
        .set(t.VERSION, t.VERSION.plus(1))
        .set(t.UPDATED_AT, Sql.NOW)
        .set(t.DELETED_AT, (Instant) null)
        .where(
            t.DELETED_AT
                .isNotNull()
                .or(
                    DSL.row(
                            t.HANDLER,
                            t.QUEUE,
                            t.CRON,
                            t.ZONE,
                            t.WINDOW_KIND,
                            t.OVERLAP_POLICY,
                            t.CATCHUP_MS,
                            t.TIMEOUT_MS,
                            t.RETRY_POLICY,
                            t.PARAMS,
                            t.TRIGGER_KIND,
                            t.SPEC)
                        .isDistinctFrom(
                            DSL.row(
                                DSL.excluded(t.HANDLER),
                                DSL.excluded(t.QUEUE),
                                DSL.excluded(t.CRON),
                                DSL.excluded(t.ZONE),
                                DSL.excluded(t.WINDOW_KIND),
                                DSL.excluded(t.OVERLAP_POLICY),
                                DSL.excluded(t.CATCHUP_MS),
                                DSL.excluded(t.TIMEOUT_MS),
                                DSL.excluded(t.RETRY_POLICY),
                                DSL.excluded(t.PARAMS),
                                DSL.excluded(t.TRIGGER_KIND),
                                DSL.excluded(t.SPEC)))))
        .returning(t.TASK_ID, t.VERSION);
  }

  /** Every task row that is not deleted, each validated again. */
  public List<LoadedTask> loadAll() {
    return dsl.selectFrom(TASK_DEFINITION)
        .where(TASK_DEFINITION.DELETED_AT.isNull())
        .orderBy(TASK_DEFINITION.TASK_ID)
        .fetch()
        .map(TaskStore::load);
  }

  /** The task {@code id} unless it does not exist or was deleted, validated again. */
  public Optional<LoadedTask> load(String id) {
    return dsl.selectFrom(TASK_DEFINITION)
        .where(TASK_DEFINITION.TASK_ID.eq(id))
        .and(TASK_DEFINITION.DELETED_AT.isNull())
        .fetchOptional()
        .map(TaskStore::load);
  }

  /** The valid definition of {@code id}, if it exists and is valid. */
  public Optional<TaskDefinition> find(String id) {
    return load(id).flatMap(LoadedTask::definition);
  }

  /**
   * The zones of the tasks {@code ids}, in one query of two columns (deleted tasks included, so the
   * instances they left still show their wall-clock times); a task without a zone (a dependency,
   * event or condition task may have none) or with one that no longer parses is absent.
   */
  public Map<String, ZoneId> zones(Collection<String> ids) {
    if (ids.isEmpty()) {
      return Map.of();
    }
    Map<String, ZoneId> out = new HashMap<>();
    dsl.select(TASK_DEFINITION.TASK_ID, TASK_DEFINITION.ZONE)
        .from(TASK_DEFINITION)
        .join(DSL.table("unnest({0}::varchar[]) as ids(id)", DSL.val(ids.toArray(String[]::new))))
        .on(TASK_DEFINITION.TASK_ID.eq(DSL.field(DSL.name("ids", "id"), String.class)))
        .fetch()
        .forEach(
            r -> {
              if (r.value2() != null) {
                try {
                  out.put(r.value1(), ZoneId.of(r.value2()));
                } catch (java.time.DateTimeException e) {
                  // Shown in UTC only; the task's own validation reports the zone.
                }
              }
            });
    return out;
  }

  /**
   * What a worker needs to run instances of {@code ids}, read in one query of four columns; ids
   * that do not exist, or whose handler or params are invalid, are absent from the answer. The
   * trigger settings are neither read nor checked (see {@link RunSpec}).
   */
  public Map<String, RunSpec> runSpecs(Collection<String> ids) {
    if (ids.isEmpty()) {
      return Map.of();
    }
    Map<String, RunSpec> out = new HashMap<>();
    // A join with unnest rather than task_id = ANY(?): linear even while the statistics of a
    // just-filled table are stale (see Sql.idTable).
    dsl.select(
            TASK_DEFINITION.TASK_ID,
            TASK_DEFINITION.HANDLER,
            TASK_DEFINITION.PARAMS,
            TASK_DEFINITION.VERSION)
        .from(TASK_DEFINITION)
        .join(DSL.table("unnest({0}::varchar[]) as ids(id)", DSL.val(ids.toArray(String[]::new))))
        .on(TASK_DEFINITION.TASK_ID.eq(DSL.field(DSL.name("ids", "id"), String.class)))
        .fetch()
        .forEach(
            r -> {
              try {
                out.put(r.value1(), new RunSpec(r.value1(), r.value2(), r.value3(), r.value4()));
              } catch (InvalidTaskException e) {
                // Absent, so the worker fails the attempt (retryable); the why is only known here.
                log.warn("Task '{}' cannot be run: {}", r.value1(), e.getMessage());
              }
            });
    return out;
  }

  /**
   * The queue of each of {@code ids} that has a definition row, in one query; the publishers route
   * instance ids to their queue's topic with it. A task without a row is absent.
   */
  public Map<String, String> queues(Collection<String> ids) {
    if (ids.isEmpty()) {
      return Map.of();
    }
    Map<String, String> out = new HashMap<>();
    dsl.select(TASK_DEFINITION.TASK_ID, TASK_DEFINITION.QUEUE)
        .from(TASK_DEFINITION)
        .join(DSL.table("unnest({0}::varchar[]) as ids(id)", DSL.val(ids.toArray(String[]::new))))
        .on(TASK_DEFINITION.TASK_ID.eq(DSL.field(DSL.name("ids", "id"), String.class)))
        .fetch()
        .forEach(r -> out.put(r.value1(), r.value2()));
    return out;
  }

  /** {@link #setPaused(String, boolean, String)} with {@link #SYSTEM_ACTOR}. */
  public boolean setPaused(String id, boolean paused) {
    return setPaused(id, paused, SYSTEM_ACTOR);
  }

  /**
   * Sets the paused flag ({@code version + 1}) and records a PAUSED or RESUMED {@link TaskEvent}
   * with {@code actor}, in one transaction.
   *
   * @return false when the task does not exist, is deleted or already had the value (nothing
   *     written)
   */
  public boolean setPaused(String id, boolean paused, String actor) {
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          Optional<Long> version =
              tx.update(TASK_DEFINITION)
                  .set(TASK_DEFINITION.PAUSED, paused)
                  .set(TASK_DEFINITION.VERSION, TASK_DEFINITION.VERSION.plus(1))
                  .set(TASK_DEFINITION.UPDATED_AT, Sql.NOW)
                  .where(TASK_DEFINITION.TASK_ID.eq(id))
                  .and(TASK_DEFINITION.PAUSED.ne(paused))
                  .and(TASK_DEFINITION.DELETED_AT.isNull())
                  .returning(TASK_DEFINITION.VERSION)
                  .fetchOptional(TASK_DEFINITION.VERSION);
          version.ifPresent(
              v ->
                  TaskEventRows.insert(
                      tx,
                      List.of(
                          new TaskEventRows.Row(
                              id,
                              paused ? TaskEvent.Kind.PAUSED : TaskEvent.Kind.RESUMED,
                              v,
                              actor,
                              null))));
          return version.isPresent();
        });
  }

  /** A task as a delete left it. */
  public record Deleted(String id, long version, Instant deletedAt) {}

  /**
   * Deletes task {@code id} softly, in one transaction: sets {@code deleted_at} ({@code version +
   * 1}), forgets its trigger cursor (a revived task starts from the time it is applied again, not
   * from where it stopped) and records a DELETED {@link TaskEvent}. The row, its instances and
   * their events stay. What to do with live instances is the caller's decision.
   *
   * @return the deletion, or empty when the task does not exist or was already deleted
   */
  public Optional<Deleted> delete(String id, String actor, String reason) {
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          Optional<Deleted> done =
              tx.update(TASK_DEFINITION)
                  .set(TASK_DEFINITION.DELETED_AT, Sql.NOW)
                  .set(TASK_DEFINITION.VERSION, TASK_DEFINITION.VERSION.plus(1))
                  .set(TASK_DEFINITION.UPDATED_AT, Sql.NOW)
                  .where(TASK_DEFINITION.TASK_ID.eq(id))
                  .and(TASK_DEFINITION.DELETED_AT.isNull())
                  .returning(TASK_DEFINITION.VERSION, TASK_DEFINITION.DELETED_AT)
                  .fetchOptional()
                  .map(r -> new Deleted(id, r.getVersion(), r.getDeletedAt()));
          done.ifPresent(
              d -> {
                tx.deleteFrom(TRIGGER_CURSOR).where(TRIGGER_CURSOR.TASK_ID.eq(id)).execute();
                TaskEventRows.insert(
                    tx,
                    List.of(
                        new TaskEventRows.Row(
                            id, TaskEvent.Kind.DELETED, d.version(), actor, reason)));
              });
          return done;
        });
  }

  /** When task {@code id} was deleted, if it exists and is deleted. */
  public Optional<Instant> deletedAt(String id) {
    return dsl.select(TASK_DEFINITION.DELETED_AT)
        .from(TASK_DEFINITION)
        .where(TASK_DEFINITION.TASK_ID.eq(id))
        .and(TASK_DEFINITION.DELETED_AT.isNotNull())
        .fetchOptional(TASK_DEFINITION.DELETED_AT);
  }

  /**
   * Tasks that are not deleted, by id, after {@code afterId}: one page of a keyset-paginated list.
   *
   * @param paused only paused (true) or only active (false) tasks, or null for both
   * @param handler only tasks of this handler, or null for any
   * @param afterId the last id of the previous page, or null for the first page
   */
  public List<LoadedTask> page(Boolean paused, String handler, String afterId, int limit) {
    Condition c = TASK_DEFINITION.DELETED_AT.isNull();
    if (paused != null) {
      c = c.and(TASK_DEFINITION.PAUSED.eq(paused));
    }
    if (handler != null) {
      c = c.and(TASK_DEFINITION.HANDLER.eq(handler));
    }
    if (afterId != null) {
      c = c.and(TASK_DEFINITION.TASK_ID.gt(afterId));
    }
    return dsl.selectFrom(TASK_DEFINITION)
        .where(c)
        .orderBy(TASK_DEFINITION.TASK_ID)
        .limit(limit)
        .fetch()
        .map(TaskStore::load);
  }

  /** The history of task {@code id}'s definition, oldest first (deleted tasks included). */
  public List<TaskEvent> events(String id) {
    return dsl.selectFrom(TASK_EVENT)
        .where(TASK_EVENT.TASK_ID.eq(id))
        .orderBy(TASK_EVENT.ID)
        .fetch()
        .map(TaskEventRows::toEvent);
  }

  /** The ids as rows of one column, for {@code IN (SELECT ...)} (see TriggerQueries). */
  private static org.jooq.Field<String> unnestIds(String[] ids) {
    return DSL.field("unnest({0}::varchar[])", String.class, DSL.val(ids));
  }

  /**
   * Trigger cursors: per task, the instant up to which fire times were evaluated and the offset its
   * zone had there (null for cursors stored before offsets were recorded).
   */
  public Map<String, TriggerCursor> cursors() {
    Map<String, TriggerCursor> out = new HashMap<>();
    dsl.selectFrom(TRIGGER_CURSOR)
        .fetch()
        .forEach(
            r ->
                out.put(
                    r.getTaskId(),
                    new TriggerCursor(
                        r.getEvaluatedUntil(),
                        r.getEvaluatedOffsetSeconds() == null
                            ? null
                            : ZoneOffset.ofTotalSeconds(r.getEvaluatedOffsetSeconds()))));
    return out;
  }

  static TaskDefinitionRecord toRecord(TaskDefinition d) {
    return TaskRows.toRecord(d);
  }

  static LoadedTask load(TaskDefinitionRecord r) {
    return TaskRows.load(r);
  }
}
