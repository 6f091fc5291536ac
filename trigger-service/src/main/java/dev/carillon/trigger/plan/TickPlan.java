package dev.carillon.trigger.plan;

import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.store.Decision;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What one tick wants written, as values: the rows to insert (the UNIQUE index still decides), the
 * decisions that create nothing, and each task's new cursor. Applied atomically by {@code
 * WindowStore.commitTick}.
 *
 * @param rows new PENDING and SKIPPED instances, per task oldest first, tasks in id order
 * @param decisions decisions that create no row ("task paused", "window exists, status X")
 * @param cursors how far each task's fire times are now evaluated, with its zone's offset there,
 *     sorted by task id so that concurrent commits lock cursor rows in one order
 * @param summaries one entry per (task, kind) for the log
 * @param counts totals for metrics
 */
public record TickPlan(
    List<NewInstance> rows,
    List<Decision> decisions,
    SortedMap<String, TriggerCursor> cursors,
    List<TaskTickSummary> summaries,
    TickCounts counts) {
  public TickPlan {
    rows = List.copyOf(rows);
    decisions = List.copyOf(decisions);
    cursors = new TreeMap<>(cursors);
    summaries = List.copyOf(summaries);
  }
}
