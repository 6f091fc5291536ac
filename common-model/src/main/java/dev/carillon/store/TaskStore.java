package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static dev.carillon.store.jooq.Tables.TRIGGER_CURSOR;

import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.RunSpec;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.jooq.tables.records.TaskDefinitionRecord;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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

  /**
   * Inserts or updates every definition in one transaction. A definition whose content changed gets
   * {@code version + 1}; an unchanged one is left alone. The paused flag is operational state and
   * is only set on insert ({@code pause}/{@code resume} change it). When an id appears more than
   * once, the last definition given wins.
   *
   * <p>One multi-row upsert per {@value #APPLY_CHUNK} definitions, not one per definition: besides
   * the round trips, every statement on {@code task_definition} runs the change counter's trigger
   * (migrations V5, V6), once per statement rather than once per row.
   *
   * @return the ids whose row was inserted or changed, in the order given
   */
  public List<String> applyAll(List<TaskDefinition> defs) {
    Map<String, TaskDefinition> byId = new LinkedHashMap<>();
    for (TaskDefinition d : defs) {
      byId.put(d.id(), d);
    }
    List<TaskDefinition> unique = new ArrayList<>(byId.values());
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          Set<String> written = new HashSet<>();
          for (int from = 0; from < unique.size(); from += APPLY_CHUNK) {
            List<TaskDefinition> chunk =
                unique.subList(from, Math.min(unique.size(), from + APPLY_CHUNK));
            InsertSetMoreStep<TaskDefinitionRecord> rows = null;
            for (TaskDefinition d : chunk) {
              rows =
                  (rows == null ? tx.insertInto(TASK_DEFINITION) : rows.newRecord())
                      .set(toRecord(d));
            }
            written.addAll(upsert(rows).fetch(TASK_DEFINITION.TASK_ID));
          }
          return byId.keySet().stream().filter(written::contains).toList();
        });
  }

  /**
   * The rows as an upsert that changes a stored definition only when its content differs, and
   * returns the ids it inserted or changed.
   */
  private static InsertResultStep<TaskDefinitionRecord> upsert(
      InsertSetMoreStep<TaskDefinitionRecord> rows) {
    var t = TASK_DEFINITION;
    return rows.onConflict(t.TASK_ID)
        .doUpdate()
        .set(t.HANDLER, DSL.excluded(t.HANDLER))
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
        .where(
            DSL.row(
                    t.HANDLER,
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
                        DSL.excluded(t.CRON),
                        DSL.excluded(t.ZONE),
                        DSL.excluded(t.WINDOW_KIND),
                        DSL.excluded(t.OVERLAP_POLICY),
                        DSL.excluded(t.CATCHUP_MS),
                        DSL.excluded(t.TIMEOUT_MS),
                        DSL.excluded(t.RETRY_POLICY),
                        DSL.excluded(t.PARAMS),
                        DSL.excluded(t.TRIGGER_KIND),
                        DSL.excluded(t.SPEC))))
        .returning(t.TASK_ID);
  }

  /** Every task row, each validated again. */
  public List<LoadedTask> loadAll() {
    return dsl.selectFrom(TASK_DEFINITION)
        .orderBy(TASK_DEFINITION.TASK_ID)
        .fetch()
        .map(TaskStore::load);
  }

  public Optional<LoadedTask> load(String id) {
    return dsl.selectFrom(TASK_DEFINITION)
        .where(TASK_DEFINITION.TASK_ID.eq(id))
        .fetchOptional()
        .map(TaskStore::load);
  }

  /** The valid definition of {@code id}, if it exists and is valid. */
  public Optional<TaskDefinition> find(String id) {
    return load(id).flatMap(LoadedTask::definition);
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

  /** Sets the paused flag; returns false when the task does not exist or already had the value. */
  public boolean setPaused(String id, boolean paused) {
    return dsl.update(TASK_DEFINITION)
            .set(TASK_DEFINITION.PAUSED, paused)
            .set(TASK_DEFINITION.VERSION, TASK_DEFINITION.VERSION.plus(1))
            .set(TASK_DEFINITION.UPDATED_AT, Sql.NOW)
            .where(TASK_DEFINITION.TASK_ID.eq(id))
            .and(TASK_DEFINITION.PAUSED.ne(paused))
            .execute()
        > 0;
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
