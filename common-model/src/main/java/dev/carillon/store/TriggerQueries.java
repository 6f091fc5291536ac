package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.Instance;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Row2;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The reads the trigger needs besides {@link InstanceStore} and {@link TaskStore}: cheap change
 * detection on task definitions, loading only the changed rows, and the current state of windows
 * whose insert turned out to be a no-op.
 *
 * <p>Change detection uses PostgreSQL's {@code xmin} system column (the id of the transaction that
 * wrote the row version) as a row stamp, because an operator editing a row by hand in SQL changes
 * neither {@code version} nor {@code updated_at}, but always changes {@code xmin}.
 *
 * <p>Thread-safe; every method is one statement.
 */
public final class TriggerQueries {
  private static final Field<Long> STAMP = DSL.field("xmin::text::bigint", SQLDataType.BIGINT);

  private final DSLContext dsl;

  public TriggerQueries(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * A value that changes whenever a task row is inserted, updated or deleted.
   *
   * @param rows the number of task rows
   * @param stampSum the sum of the rows' stamps; an update gives a row a new, larger stamp
   */
  public record TaskFingerprint(long rows, long stampSum) {}

  /** A task row as read back, with its row stamp. */
  public record StampedTask(LoadedTask task, long stamp) {}

  /** One aggregate over {@code task_definition}: cheap enough to run every tick. */
  public TaskFingerprint taskFingerprint() {
    var r =
        dsl.select(DSL.count(), DSL.coalesce(DSL.sum(STAMP), BigDecimal.ZERO))
            .from(TASK_DEFINITION)
            .fetchSingle();
    return new TaskFingerprint(r.value1(), r.value2().longValue());
  }

  /** Every task id with its row stamp. */
  public Map<String, Long> taskStamps() {
    Map<String, Long> out = new HashMap<>();
    dsl.select(TASK_DEFINITION.TASK_ID, STAMP)
        .from(TASK_DEFINITION)
        .fetch()
        .forEach(r -> out.put(r.value1(), r.value2()));
    return out;
  }

  /** The given task rows, each validated again (see {@link TaskStore#loadAll()}). */
  public List<StampedTask> loadTasks(Collection<String> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    return dsl.select(TASK_DEFINITION.asterisk(), STAMP)
        .from(TASK_DEFINITION)
        .where(TASK_DEFINITION.TASK_ID.eq(DSL.any(ids.toArray(String[]::new))))
        .orderBy(TASK_DEFINITION.TASK_ID)
        .fetch()
        .map(r -> new StampedTask(TaskStore.load(r.into(TASK_DEFINITION)), r.get(STAMP)));
  }

  /**
   * The instances of the given {@code (task_id, window_key)} pairs, keyed by {@code
   * taskId/windowKey} ({@link Instance#idempotencyKey()}); pairs without a row are absent.
   */
  public Map<String, Instance> windows(Collection<Map.Entry<String, String>> taskAndWindow) {
    if (taskAndWindow.isEmpty()) {
      return Map.of();
    }
    List<Row2<String, String>> pairs = new ArrayList<>(taskAndWindow.size());
    for (Map.Entry<String, String> e : taskAndWindow) {
      pairs.add(DSL.row(e.getKey(), e.getValue()));
    }
    Map<String, Instance> out = new HashMap<>();
    dsl.selectFrom(TASK_INSTANCE)
        .where(DSL.row(TASK_INSTANCE.TASK_ID, TASK_INSTANCE.WINDOW_KEY).in(pairs))
        .fetch()
        .forEach(
            r -> {
              Instance i = InstanceStore.toInstance(r);
              out.put(i.idempotencyKey(), i);
            });
    return out;
  }
}
