package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.jooq.tables.records.InstanceEventRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jooq.CommonTableExpression;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertValuesStep9;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * {@code instance_event} rows: how every store writes them (in the transaction, or the statement,
 * of the change they record) and reads them back as {@link InstanceEvent}s.
 */
final class EventRows {
  private EventRows() {}

  /** One event to write. */
  record Row(
      Long instanceId,
      String taskId,
      String windowKey,
      InstanceEvent.Kind kind,
      InstanceStatus from,
      InstanceStatus to,
      Integer attempt,
      String actor,
      String reason) {}

  static Row transition(Instance after, InstanceStatus from, String actor, String reason) {
    return new Row(
        after.id(),
        after.taskId(),
        after.windowKey(),
        InstanceEvent.Kind.TRANSITION,
        from,
        after.status(),
        after.attempt(),
        actor,
        reason);
  }

  /**
   * {@code name AS (INSERT INTO instance_event ... SELECT ... FROM rows)}: one event for each row a
   * data-modifying CTE of the same statement wrote, so that only a written row gets one.
   *
   * @param rows a CTE returning at least {@code id}, {@code task_id} and {@code window_key}
   */
  static CommonTableExpression<?> eventsOf(
      DSLContext ctx,
      String name,
      CommonTableExpression<?> rows,
      InstanceEvent.Kind kind,
      Field<String> from,
      Field<String> to,
      Field<Integer> attempt,
      String actor,
      Field<String> reason) {
    return DSL.name(name)
        .as(
            insertEvent(ctx)
                .select(
                    DSL.select(
                            rows.field(TASK_INSTANCE.ID),
                            rows.field(TASK_INSTANCE.TASK_ID),
                            rows.field(TASK_INSTANCE.WINDOW_KEY),
                            DSL.val(kind.name()),
                            from,
                            to,
                            attempt,
                            DSL.val(actor),
                            reason)
                        .from(rows))
                .returningResult(INSTANCE_EVENT.ID));
  }

  /** {@code INSERT INTO instance_event} with the columns every event write sets. */
  private static InsertValuesStep9<
          InstanceEventRecord,
          Long,
          String,
          String,
          String,
          String,
          String,
          Integer,
          String,
          String>
      insertEvent(DSLContext ctx) {
    return ctx.insertInto(
        INSTANCE_EVENT,
        INSTANCE_EVENT.INSTANCE_ID,
        INSTANCE_EVENT.TASK_ID,
        INSTANCE_EVENT.WINDOW_KEY,
        INSTANCE_EVENT.KIND,
        INSTANCE_EVENT.FROM_STATUS,
        INSTANCE_EVENT.TO_STATUS,
        INSTANCE_EVENT.ATTEMPT,
        INSTANCE_EVENT.ACTOR,
        INSTANCE_EVENT.REASON);
  }

  /** Writes {@code events} in one statement, however many. */
  static void insert(DSLContext tx, List<Row> events) {
    insert(tx, events, null);
  }

  /**
   * Writes {@code events} in one statement, however many; with a {@code fence}, only while it is
   * current.
   *
   * @return the events written: all of them, or none when the fence stopped the statement
   */
  static int insert(DSLContext tx, List<Row> events, Fence fence) {
    if (events.isEmpty()) {
      return 0;
    }
    // As for instances: one array bind value per column, however many events.
    int n = events.size();
    Long[] instanceIds = new Long[n];
    String[] taskIds = new String[n];
    String[] keys = new String[n];
    String[] kinds = new String[n];
    String[] froms = new String[n];
    String[] tos = new String[n];
    Integer[] attempts = new Integer[n];
    String[] actors = new String[n];
    String[] reasons = new String[n];
    for (int k = 0; k < n; k++) {
      Row e = events.get(k);
      instanceIds[k] = e.instanceId();
      taskIds[k] = e.taskId();
      keys[k] = e.windowKey();
      kinds[k] = e.kind().name();
      froms[k] = e.from() == null ? null : e.from().name();
      tos[k] = e.to() == null ? null : e.to().name();
      attempts[k] = e.attempt();
      actors[k] = e.actor();
      reasons[k] = e.reason();
    }
    Table<?> t =
        DSL.table(
            "unnest({0}::bigint[], {1}::varchar[], {2}::varchar[], {3}::varchar[],"
                + " {4}::varchar[], {5}::varchar[], {6}::int[], {7}::varchar[], {8}::text[])"
                + " as t(instance_id, task_id, window_key, kind, from_status, to_status,"
                + " attempt, actor, reason)",
            DSL.val(instanceIds),
            DSL.val(taskIds),
            DSL.val(keys),
            DSL.val(kinds),
            DSL.val(froms),
            DSL.val(tos),
            DSL.val(attempts),
            DSL.val(actors),
            DSL.val(reasons));
    return insertEvent(tx)
        .select(
            DSL.select(
                    DSL.field(DSL.name("t", "instance_id"), Long.class),
                    DSL.field(DSL.name("t", "task_id"), String.class),
                    DSL.field(DSL.name("t", "window_key"), String.class),
                    DSL.field(DSL.name("t", "kind"), String.class),
                    DSL.field(DSL.name("t", "from_status"), String.class),
                    DSL.field(DSL.name("t", "to_status"), String.class),
                    DSL.field(DSL.name("t", "attempt"), Integer.class),
                    DSL.field(DSL.name("t", "actor"), String.class),
                    DSL.field(DSL.name("t", "reason"), String.class))
                .from(t)
                .where(fence == null ? DSL.noCondition() : Fences.current(fence)))
        .execute();
  }

  /**
   * Writes decisions that changed no row, in one statement, coalescing repeats: a decision
   * identical to the latest event of its window (kind DECISION, same actor, instance and reason)
   * adds its count to that row's {@code repeats} and moves its {@code last_at} instead of adding a
   * row (see {@code V20__coalesced_decisions.sql}). Identical decisions next to each other in
   * {@code decisions} are counted together first. Any other event in between (a transition, a
   * different decision) keeps the story's order: the decision after it is a new row.
   *
   * <p>Two writers deciding about the same window at once (a split brain) may each add a row where
   * one would do, or both count on the same row (the row lock orders the two updates, and each adds
   * its own count): never a lost decision. The latest event is the latest committed when the
   * statement starts, so a decision racing with a transition of its window (a claim committing at
   * the same moment) may be counted on the decision before that transition: the count stays right,
   * only its place in the story is one event early.
   */
  static void insertDecisions(DSLContext tx, List<Decision> decisions) {
    if (decisions.isEmpty()) {
      return;
    }
    List<Decision> runs = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    for (Decision d : decisions) {
      int last = runs.size() - 1;
      if (last >= 0 && runs.get(last).equals(d)) {
        counts.set(last, counts.get(last) + 1);
      } else {
        runs.add(d);
        counts.add(1);
      }
    }
    int n = runs.size();
    Long[] instanceIds = new Long[n];
    String[] taskIds = new String[n];
    String[] keys = new String[n];
    String[] actors = new String[n];
    String[] reasons = new String[n];
    Integer[] repeats = new Integer[n];
    Boolean[] mergeable = new Boolean[n];
    Set<String> windowsSeen = new HashSet<>();
    for (int k = 0; k < n; k++) {
      Decision d = runs.get(k);
      instanceIds[k] = d.instanceId();
      taskIds[k] = d.taskId();
      keys[k] = d.windowKey();
      actors[k] = d.actor();
      reasons[k] = d.reason();
      repeats[k] = counts.get(k);
      // Only the first decision of a window in this batch can follow the window's stored latest
      // event; a later one follows a different decision of this same batch.
      mergeable[k] = d.windowKey() != null && windowsSeen.add(d.taskId() + "/" + d.windowKey());
    }
    tx.execute(
        "with d as (select * from unnest({0}::bigint[], {1}::varchar[], {2}::varchar[],"
            + " {3}::varchar[], {4}::text[], {5}::int[], {6}::boolean[]) with ordinality"
            + " as t(instance_id, task_id, window_key, actor, reason, repeats, mergeable, ord)),"
            + " counted as (update instance_event e"
            + " set repeats = e.repeats + d.repeats, last_at = now()"
            + " from d where d.mergeable"
            + " and e.id = (select x.id from instance_event x where x.task_id = d.task_id"
            + " and x.window_key = d.window_key order by x.id desc limit 1)"
            + " and e.kind = {7} and e.actor = d.actor"
            + " and e.instance_id is not distinct from d.instance_id"
            + " and e.reason is not distinct from d.reason"
            + " returning d.ord)"
            + " insert into instance_event (instance_id, task_id, window_key, kind, actor,"
            + " reason, repeats, last_at)"
            + " select d.instance_id, d.task_id, d.window_key, {7}, d.actor, d.reason,"
            + " d.repeats, case when d.repeats > 1 then now() end"
            + " from d where d.ord not in (select ord from counted) order by d.ord",
        DSL.val(instanceIds),
        DSL.val(taskIds),
        DSL.val(keys),
        DSL.val(actors),
        DSL.val(reasons),
        DSL.val(repeats),
        DSL.val(mergeable),
        DSL.val(InstanceEvent.Kind.DECISION.name()));
  }

  static InstanceEvent toEvent(InstanceEventRecord e) {
    return new InstanceEvent(
        e.getId(),
        e.getInstanceId(),
        e.getTaskId(),
        e.getWindowKey(),
        InstanceEvent.Kind.valueOf(e.getKind()),
        e.getFromStatus() == null ? null : InstanceStatus.valueOf(e.getFromStatus()),
        e.getToStatus() == null ? null : InstanceStatus.valueOf(e.getToStatus()),
        e.getAttempt(),
        e.getActor(),
        e.getReason(),
        e.getCreatedAt(),
        e.getRepeats(),
        e.getLastAt());
  }
}
