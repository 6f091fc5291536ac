package dev.carillon.trigger.plan;

import dev.carillon.model.Durations;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.CronSchedule;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TimeTrigger;
import dev.carillon.store.Decision;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The trigger's rules as a pure function: given the tasks, their cursors, their live instances and
 * now, which rows to insert, which decisions to log and where each cursor moves. No IO, no clock.
 *
 * <p>For each task, in id order:
 *
 * <ol>
 *   <li>A task without a cursor starts it at {@code now}: history is not back-filled. A one-shot
 *       ({@link AtTrigger}) is the exception: it starts just before its instant when that has
 *       passed, and is evaluated in the same tick, so however late the trigger first sees it (an
 *       apply a moment before the instant, a failover) its one fire time is decided by the rules
 *       below: run, late (CATCHUP) within the catch-up window, or recorded SKIPPED beyond it.
 *       Cursors come in as instants valid under the zone rules in force (the caller moves a cursor
 *       whose recorded offset the rules no longer give, {@link TriggerCursor#underRulesOf}); each
 *       new cursor goes out with its zone's offset.
 *   <li>The fire times in {@code (cursor, now]}, at most {@link
 *       PlannerSettings#maxWindowsPerTask()}, oldest first; the cursor moves to {@code now}, or to
 *       the last fire time taken when the cap was hit. A cursor at or after {@code now} (the clock
 *       jumped back) stays where it is, so nothing fires twice.
 *   <li>Each fire time maps to its window; several fire times of one window are one window, and
 *       only the first creates it.
 *   <li>Paused: every window becomes a "task paused" decision.
 *   <li>A window that already has a live instance becomes a "window exists" decision. (Windows that
 *       exist in a finished state are not known here; their insert is a no-op and the caller logs
 *       that decision after the commit.)
 *   <li>A fire time older than {@link PlannerSettings#onTimeGrace()} was missed: older than the
 *       task's catch-up window it is recorded SKIPPED ({@value #OUTSIDE_CATCHUP}), otherwise it
 *       runs with origin CATCHUP. Newer fire times are on time (origin SCHEDULE).
 *   <li>Overlap SKIP: while an earlier window is live (in the database, or planned PENDING earlier
 *       in this tick) the window is recorded SKIPPED, naming the blocker. ALLOW runs it.
 * </ol>
 *
 * <p>Created ahead: with a {@code horizon} after {@code now} ({@code trigger.create-ahead}), fire
 * times up to the horizon are planned too, their rows created PENDING before their instant (the
 * dispatcher publishes each at its {@code scheduled_at}). Only what cannot change by the fire time
 * is decided early: a paused task, and a SKIP task with a live instance or one planned earlier in
 * this tick, are planned only up to {@code now}, because whether the pause or the blocker still
 * holds at the fire time is known only then. Catch-up and on-time are judged against {@code now}.
 *
 * <p>Thread-safe (stateless apart from its settings).
 */
public final class TickPlanner {
  /** The reason recorded on a window older than the catch-up window. */
  public static final String OUTSIDE_CATCHUP = "outside catch-up window";

  private final PlannerSettings settings;

  public TickPlanner(PlannerSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /**
   * Plans one tick.
   *
   * @param tasks the valid task definitions to evaluate (paused ones included)
   * @param cursors each task's cursor, valid under the current zone rules; a missing entry means
   *     the task is new
   * @param liveByTask each task's instances in a live status; missing means none
   * @param now the tick's instant
   * @return the plan; its cursors hold an entry for every task whose cursor moved or started
   */
  public TickPlan plan(
      List<TaskDefinition> tasks,
      Map<String, Instant> cursors,
      Map<String, List<Instance>> liveByTask,
      Instant now) {
    return plan(tasks, cursors, liveByTask, now, now);
  }

  /**
   * Plans one tick that also creates the windows whose fire time is after {@code now} and at or
   * before {@code horizon}, where nothing may block them by then (see the class comment).
   *
   * @param horizon the latest fire time to plan; {@code now} plans nothing ahead
   * @throws IllegalArgumentException if {@code horizon} is before {@code now}
   */
  public TickPlan plan(
      List<TaskDefinition> tasks,
      Map<String, Instant> cursors,
      Map<String, List<Instance>> liveByTask,
      Instant now,
      Instant horizon) {
    Objects.requireNonNull(now, "now");
    Objects.requireNonNull(horizon, "horizon");
    if (horizon.isBefore(now)) {
      throw new IllegalArgumentException("horizon " + horizon + " is before now " + now);
    }
    List<TaskDefinition> ordered = new ArrayList<>(tasks);
    ordered.sort(Comparator.comparing(TaskDefinition::id));
    Acc acc = new Acc(horizon);
    // Many tasks share an expression and zone (and, on time, their cursor): compute each distinct
    // fire-time list once per tick. Schedules are equal when expression and zone are.
    Map<FireQuery, List<Instant>> fireMemo = new HashMap<>();
    for (TaskDefinition task : ordered) {
      Instant cursor = cursors.get(task.id());
      if (cursor == null) {
        acc.started++;
        cursor = startOf(task, now);
        if (!cursor.isBefore(now)) {
          acc.cursors.put(task.id(), TriggerCursor.at(now, task.trigger().zone()));
          continue;
        }
      }
      List<Instance> live = liveByTask.getOrDefault(task.id(), List.of());
      boolean blocked = task.paused() || (task.overlap() == OverlapPolicy.SKIP && !live.isEmpty());
      Instant bound = blocked ? now : horizon;
      if (!bound.isAfter(cursor)) {
        continue;
      }
      acc.evaluated++;
      planTask(task, cursor, live, now, bound, acc, fireMemo);
    }
    return new TickPlan(
        acc.rows,
        acc.decisions,
        acc.cursors,
        acc.summaries,
        new TickCounts(
            acc.evaluated,
            acc.started,
            acc.fires,
            acc.pending,
            acc.catchup,
            acc.skippedOverlap,
            acc.skippedCatchup,
            acc.paused,
            acc.exists,
            acc.truncated));
  }

  private record FireQuery(CronSchedule schedule, Instant cursor) {}

  /**
   * Where a task seen for the first time starts: now, or, for a one-shot whose instant has passed,
   * the second before it.
   */
  private static Instant startOf(TaskDefinition task, Instant now) {
    if (task.trigger() instanceof AtTrigger at) {
      Instant before = at.at().minusSeconds(1);
      return before.isBefore(now) ? before : now;
    }
    return now;
  }

  private void planTask(
      TaskDefinition task,
      Instant cursor,
      List<Instance> live,
      Instant now,
      Instant bound,
      Acc acc,
      Map<FireQuery, List<Instant>> fireMemo) {
    int cap = settings.maxWindowsPerTask();
    if (!(task.trigger() instanceof TimeTrigger time)) {
      throw new IllegalArgumentException("task '" + task.id() + "' has no time trigger to plan");
    }
    // The memo's key leaves the bound out: it is the same for every task of one tick (the horizon)
    // except for blocked ones, which are few; those compute their own list.
    List<Instant> fires =
        time instanceof CronTrigger cron && bound.equals(acc.horizon)
            ? fireMemo.computeIfAbsent(
                new FireQuery(cron.schedule(), cursor),
                q -> q.schedule().fireTimes(cursor, bound, cap))
            : time.fireTimes(cursor, bound, cap);
    Instant newCursor = bound;
    if (fires.size() == cap) {
      // The backlog may go on; evaluate the rest on the next ticks, oldest first.
      newCursor = fires.get(cap - 1);
      acc.truncated++;
    }

    Map<String, Instance> liveByWindow = new LinkedHashMap<>();
    for (Instance i : live) {
      liveByWindow.put(i.windowKey(), i);
    }
    // The instance that blocks a new window under SKIP: the oldest live one, or the first one this
    // tick plans PENDING.
    Blocker blocker =
        live.stream()
            .min(Comparator.comparing(Instance::windowStart).thenComparing(Instance::id))
            .map(i -> new Blocker(i.windowKey(), "instance " + i.id(), i.status().name()))
            .orElse(null);
    Instant catchupHorizon = now.minus(task.catchup());
    Instant onTimeFrom = now.minus(settings.onTimeGrace());
    Set<String> seen = new HashSet<>();
    Summaries summaries = new Summaries(task.id());

    Instant previous = null;
    int taken = 0;
    for (Instant fire : fires) {
      if (fire.isAfter(now) && task.overlap() == OverlapPolicy.SKIP && blocker != null) {
        // Planned PENDING earlier in this tick: whether it still runs at this fire time is known
        // only then. The tick at (or after) the fire time decides it.
        newCursor = previous.isAfter(now) ? previous : now;
        break;
      }
      previous = fire;
      taken++;
      Window window = time.window().windowOf(fire, time.zone());
      if (!seen.add(window.key())) {
        continue; // an earlier fire time of this tick already decided this window
      }
      if (task.paused()) {
        decide(acc, summaries, task, window, null, DecisionKind.TASK_PAUSED, "task paused");
        acc.paused++;
        continue;
      }
      Instance existing = liveByWindow.get(window.key());
      if (existing != null) {
        decide(
            acc,
            summaries,
            task,
            window,
            existing.id(),
            DecisionKind.WINDOW_EXISTS,
            "window exists, status " + existing.status());
        acc.exists++;
        continue;
      }
      boolean onTime = !fire.isBefore(onTimeFrom);
      Origin origin = onTime ? Origin.SCHEDULE : Origin.CATCHUP;
      if (!onTime && fire.isBefore(catchupHorizon)) {
        String reason = OUTSIDE_CATCHUP + " (" + Durations.format(task.catchup()) + ")";
        acc.rows.add(NewInstance.skipped(task.id(), window, fire, origin, task.timeout(), reason));
        summaries.add(SkipReason.OUTSIDE_CATCHUP.name(), window.key(), reason);
        acc.skippedCatchup++;
        continue;
      }
      if (task.overlap() == OverlapPolicy.SKIP && blocker != null) {
        String reason =
            "previous window "
                + blocker.windowKey()
                + " ("
                + blocker.instance()
                + ") still "
                + blocker.status();
        acc.rows.add(NewInstance.skipped(task.id(), window, fire, origin, task.timeout(), reason));
        summaries.add(SkipReason.OVERLAP.name(), window.key(), reason);
        acc.skippedOverlap++;
        continue;
      }
      acc.rows.add(
          NewInstance.pending(
              task.id(), window, fire, origin, task.timeout(), task.retry().maxRetries()));
      summaries.add("created", window.key(), "created (" + origin + ")");
      acc.pending++;
      if (origin == Origin.CATCHUP) {
        acc.catchup++;
      }
      if (blocker == null) {
        blocker = new Blocker(window.key(), "planned in the same tick", "PENDING");
      }
    }
    acc.cursors.put(task.id(), TriggerCursor.at(newCursor, task.trigger().zone()));
    acc.fires += taken;
    acc.summaries.addAll(summaries.list());
  }

  private void decide(
      Acc acc,
      Summaries summaries,
      TaskDefinition task,
      Window window,
      Long instanceId,
      DecisionKind kind,
      String reason) {
    acc.decisions.add(new Decision(task.id(), window.key(), instanceId, settings.actor(), reason));
    summaries.add(kind.name(), window.key(), reason);
  }

  private record Blocker(String windowKey, String instance, String status) {}

  /** Per (task, kind): count and first window, in the order kinds first occur. */
  private static final class Summaries {
    private final String taskId;
    private final Map<String, TaskTickSummary> byKind = new LinkedHashMap<>();

    Summaries(String taskId) {
      this.taskId = taskId;
    }

    void add(String kind, String windowKey, String reason) {
      byKind.merge(
          kind,
          new TaskTickSummary(taskId, kind, 1, windowKey, reason),
          (a, b) -> new TaskTickSummary(taskId, kind, a.count() + 1, a.firstWindow(), a.reason()));
    }

    List<TaskTickSummary> list() {
      return List.copyOf(byKind.values());
    }
  }

  private static final class Acc {
    final Instant horizon;
    final List<NewInstance> rows = new ArrayList<>();
    final List<Decision> decisions = new ArrayList<>();
    final TreeMap<String, TriggerCursor> cursors = new TreeMap<>();
    final List<TaskTickSummary> summaries = new ArrayList<>();
    int evaluated;
    int started;
    int fires;
    int pending;
    int catchup;
    int skippedOverlap;
    int skippedCatchup;
    int paused;
    int exists;
    int truncated;

    Acc(Instant horizon) {
      this.horizon = horizon;
    }
  }
}
