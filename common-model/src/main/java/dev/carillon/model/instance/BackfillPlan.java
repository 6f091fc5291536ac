package dev.carillon.model.instance;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.schedule.FireTime;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.task.Problem;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TimeTrigger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The windows a backfill wants: one PENDING row with origin BACKFILL per window that has a fire
 * time in {@code [from, to)}, scheduled at the window's first fire time in the range. Pure; whether
 * a row is created is decided later by the UNIQUE index, never by this plan. {@code schedctl
 * backfill} and the API's backfill share it.
 *
 * @param rows the rows, in fire-time order, one per window key
 */
public record BackfillPlan(String taskId, Instant from, Instant to, List<NewInstance> rows) {
  /** The most windows one backfill may create. */
  public static final int MAX_WINDOWS = 10_000;

  /** The most fire times one backfill may walk (a per-second cron over a month is millions). */
  public static final int MAX_FIRE_TIMES = 200_000;

  public BackfillPlan {
    Objects.requireNonNull(taskId, "taskId");
    rows = List.copyOf(rows);
  }

  /**
   * Plans the windows of {@code def} with a fire time in {@code [from, to)}.
   *
   * @throws InvalidValueException (field {@code range}) when the range holds more than {@link
   *     #MAX_WINDOWS} windows or {@link #MAX_FIRE_TIMES} fire times
   */
  public static BackfillPlan of(TaskDefinition def, Instant from, Instant to) {
    if (!(def.trigger() instanceof TimeTrigger time)) {
      throw new IllegalArgumentException("task '" + def.id() + "' has no fire times of its own");
    }
    // fireTimesDetailed is (fromExclusive, upToInclusive]; fire times are whole seconds.
    List<FireTime> fires =
        time.fireTimesDetailed(from.minusNanos(1), to.minusNanos(1), MAX_FIRE_TIMES + 1);
    if (fires.size() > MAX_FIRE_TIMES) {
      throw new InvalidValueException(
          new Problem(
              "range",
              "[" + from + ", " + to + ")",
              "holds more than "
                  + MAX_FIRE_TIMES
                  + " fire times of task '"
                  + def.id()
                  + "'; back-fill a shorter range"));
    }
    Set<String> seen = new LinkedHashSet<>();
    List<NewInstance> rows = new ArrayList<>();
    for (FireTime f : fires) {
      Window w = time.window().windowOf(f.instant(), time.zone());
      if (seen.add(w.key())) {
        rows.add(
            NewInstance.pending(
                def.id(),
                w,
                f.instant(),
                Origin.BACKFILL,
                def.timeout(),
                def.retry().maxRetries()));
      }
    }
    if (rows.size() > MAX_WINDOWS) {
      throw new InvalidValueException(
          new Problem(
              "range",
              "[" + from + ", " + to + ")",
              "holds "
                  + rows.size()
                  + " windows of task '"
                  + def.id()
                  + "'; one backfill creates at most "
                  + MAX_WINDOWS));
    }
    return new BackfillPlan(def.id(), from, to, rows);
  }
}
