package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_EVENT;

import dev.carillon.model.task.TaskEvent;
import dev.carillon.store.jooq.tables.records.TaskEventRecord;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/** {@code task_event} rows: written in the transaction of the change they record. */
final class TaskEventRows {
  private TaskEventRows() {}

  /** One event to write. */
  record Row(String taskId, TaskEvent.Kind kind, long version, String actor, String reason) {}

  /** Writes {@code events} in one statement, however many (one array bind value per column). */
  static void insert(DSLContext tx, List<Row> events) {
    if (events.isEmpty()) {
      return;
    }
    int n = events.size();
    String[] taskIds = new String[n];
    String[] kinds = new String[n];
    Long[] versions = new Long[n];
    String[] actors = new String[n];
    String[] reasons = new String[n];
    for (int k = 0; k < n; k++) {
      Row e = events.get(k);
      taskIds[k] = e.taskId();
      kinds[k] = e.kind().name();
      versions[k] = e.version();
      actors[k] = e.actor();
      reasons[k] = e.reason();
    }
    tx.insertInto(
            TASK_EVENT,
            TASK_EVENT.TASK_ID,
            TASK_EVENT.KIND,
            TASK_EVENT.VERSION,
            TASK_EVENT.ACTOR,
            TASK_EVENT.REASON)
        .select(
            DSL.select(
                    DSL.field(DSL.name("t", "task_id"), String.class),
                    DSL.field(DSL.name("t", "kind"), String.class),
                    DSL.field(DSL.name("t", "version"), Long.class),
                    DSL.field(DSL.name("t", "actor"), String.class),
                    DSL.field(DSL.name("t", "reason"), String.class))
                .from(
                    DSL.table(
                        "unnest({0}::varchar[], {1}::varchar[], {2}::bigint[], {3}::varchar[],"
                            + " {4}::text[]) as t(task_id, kind, version, actor, reason)",
                        DSL.val(taskIds),
                        DSL.val(kinds),
                        DSL.val(versions),
                        DSL.val(actors),
                        DSL.val(reasons))))
        .execute();
  }

  static TaskEvent toEvent(TaskEventRecord r) {
    return new TaskEvent(
        r.getId(),
        r.getTaskId(),
        TaskEvent.Kind.valueOf(r.getKind()),
        r.getVersion(),
        r.getActor(),
        r.getReason(),
        r.getCreatedAt());
  }
}
