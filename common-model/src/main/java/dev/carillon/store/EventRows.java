package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.jooq.tables.records.InstanceEventRecord;
import java.util.List;
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

  static Row decision(Decision d) {
    return new Row(
        d.instanceId(),
        d.taskId(),
        d.windowKey(),
        InstanceEvent.Kind.DECISION,
        null,
        null,
        null,
        d.actor(),
        d.reason());
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
        e.getCreatedAt());
  }
}
