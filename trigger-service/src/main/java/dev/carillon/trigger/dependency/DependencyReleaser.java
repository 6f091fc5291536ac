package dev.carillon.trigger.dependency;

import dev.carillon.election.Fencing;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TaskGraph;
import dev.carillon.store.Decision;
import dev.carillon.store.DependencyQueries;
import dev.carillon.store.DependencyQueries.Completion;
import dev.carillon.store.Fence;
import dev.carillon.store.FencedException;
import dev.carillon.store.TriggerQueries;
import dev.carillon.store.WindowStore;
import dev.carillon.trigger.tick.DefinitionCache;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases dependency-triggered windows, driven by completions: it reads only the event-log rows
 * that finished an instance after its stored offset ({@link DependencyQueries}), never the instance
 * table as a whole. For each completed upstream window it looks at the window's downstream tasks:
 *
 * <ul>
 *   <li>every upstream's instance of the window is SUCCESS: the downstream's instance of the same
 *       window key is created (origin DEPENDENCY, window start and end copied from the upstream's
 *       row), or, when that window already finished before this completion (the upstream was re-run
 *       or backfilled), it is re-run;
 *   <li>an upstream's instance ended DEAD, SKIPPED or CANCELLED: the downstream window is recorded
 *       SKIPPED with the reason {@code upstream X dead} (skips then cascade further down);
 *   <li>otherwise the window waits for the other upstreams' completions.
 * </ul>
 *
 * <p><b>Exactly once, across failover.</b> Creation goes through the UNIQUE window index; a re-run
 * only happens when the downstream window's last change precedes the completion, and the re-run
 * itself changes it, so handling a completion twice changes nothing. The stored offset therefore
 * only has to never skip a completion. Event ids are taken when a transaction inserts, not when it
 * commits, so a row with a smaller id can become visible after a larger one; the offset is moved
 * only past completions older than {@link #SETTLE} (database time), and completions above it that
 * were already handled are remembered in memory and left out of the next read. A new leader starts
 * at the stored offset and handles the last few seconds again, harmlessly.
 *
 * <p>While no task lists another in {@code after}, a pass reads no completions: it moves the offset
 * to the newest one, so a dependency declared later is released by the completions that come after
 * it, as it would have been had the releaser read and dropped each one.
 *
 * <p>{@link #releaseOnce()} is one pass; tests call it directly. Passes are serialized.
 */
public final class DependencyReleaser {
  /** The {@code trigger_offset} row holding the position. */
  public static final String OFFSET = "dependency:events";

  /**
   * How old a completion must be before the offset moves past it: longer than any transition
   * transaction runs, so that no smaller id can still appear below the offset.
   */
  public static final Duration SETTLE = Duration.ofSeconds(10);

  static final int BATCH = 500;

  private static final Logger log = LoggerFactory.getLogger(DependencyReleaser.class);

  private final DefinitionCache tasks;
  private final TriggerQueries queries;
  private final WindowStore windows;
  private final DependencyQueries deps;
  private final String actor;
  private final Clock clock;
  private final Consumer<List<Instance>> dispatch;
  private final BooleanSupplier mayCommit;
  private final Fencing fencing;

  private final Object lock = new Object();
  private boolean loaded;
  private TaskGraph graph;
  private List<TaskDefinition> graphOf;
  private long offset;
  private final TreeMap<Long, Instant> handled = new TreeMap<>();

  /**
   * What one pass did.
   *
   * @param completions completions read
   * @param created downstream instances created (PENDING or SKIPPED)
   * @param rerun finished downstream windows sent back to PENDING
   * @param offset the stored offset after the pass
   */
  public record Pass(int completions, List<Instance> created, List<Instance> rerun, long offset) {}

  /**
   * @param queries window lookups
   * @param tasks the trigger service's definitions (the cache its loops share)
   * @param windows inserts, decisions and re-runs of finished downstream windows
   * @param deps completions, the offset and the database clock
   * @param actor who the event log names
   * @param clock the scheduled time of created instances
   * @param dispatch receives new and re-run PENDING instances; must not block
   * @param mayCommit asked before writing; false (leadership lost) drops the pass
   * @param fencing the leader's fence for each pass, and where a fenced write is reported
   */
  public DependencyReleaser(
      TriggerQueries queries,
      DefinitionCache tasks,
      WindowStore windows,
      DependencyQueries deps,
      String actor,
      Clock clock,
      Consumer<List<Instance>> dispatch,
      BooleanSupplier mayCommit,
      Fencing fencing) {
    this.queries = Objects.requireNonNull(queries, "queries");
    this.tasks = Objects.requireNonNull(tasks, "tasks");
    this.windows = Objects.requireNonNull(windows, "windows");
    this.deps = Objects.requireNonNull(deps, "deps");
    this.actor = Objects.requireNonNull(actor, "actor");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.dispatch = Objects.requireNonNull(dispatch, "dispatch");
    this.mayCommit = Objects.requireNonNull(mayCommit, "mayCommit");
    this.fencing = Objects.requireNonNull(fencing, "fencing");
  }

  /** Forgets the in-memory position; the next pass starts at the stored offset. */
  public void resync() {
    synchronized (lock) {
      loaded = false;
      graphOf = null;
    }
  }

  /**
   * Handles every completion not yet handled, in batches, then moves the stored offset; under the
   * leader's fence.
   *
   * @throws dev.carillon.election.NotLeaderException if this instance does not lead
   * @throws FencedException if another leader took over (reported to {@link Fencing#fenced})
   */
  public Pass releaseOnce() {
    synchronized (lock) {
      Fence fence = fencing.fence();
      try {
        return release(fence);
      } catch (FencedException e) {
        fencing.fenced(e);
        throw e;
      }
    }
  }

  private Pass release(Fence fence) {
    if (!loaded) {
      offset = deps.offset(OFFSET);
      handled.clear();
      loaded = true;
    }
    List<TaskDefinition> defs = tasks.refresh();
    if (defs != graphOf) {
      // The cache hands back the same list while no task changed; 20,000 tasks take a while to
      // walk, so the graph is rebuilt only on a change.
      graph = TaskGraph.of(defs);
      graphOf = defs;
    }
    if (!graph.hasDependencies()) {
      return skipAll(fence);
    }
    int read = 0;
    List<Instance> created = new ArrayList<>();
    List<Instance> rerun = new ArrayList<>();
    // Two reads: first the completions that committed late below the highest handled id (rare;
    // the handled ids are left out), then everything above it, a cheap range on the index.
    boolean late = !handled.isEmpty();
    while (true) {
      List<Completion> batch =
          late
              ? deps.lateCompletions(offset, handled.lastKey(), handled.keySet(), BATCH)
              : deps.completionsAfter(handled.isEmpty() ? offset : handled.lastKey(), BATCH);
      if (!batch.isEmpty()) {
        if (!mayCommit.getAsBoolean()) {
          log.warn("Dependency pass dropped: no longer the leader");
          return new Pass(read, created, rerun, offset);
        }
        read += batch.size();
        handle(graph, batch, created, rerun, fence);
        batch.forEach(c -> handled.put(c.eventId(), c.at()));
      }
      if (batch.size() < BATCH) {
        if (!late) {
          break;
        }
        late = false;
      }
    }
    advance(fence);
    List<Instance> pending = new ArrayList<>();
    created.stream().filter(i -> i.status() == InstanceStatus.PENDING).forEach(pending::add);
    pending.addAll(rerun);
    if (!pending.isEmpty()) {
      dispatch.accept(pending);
    }
    return new Pass(read, created, rerun, offset);
  }

  /**
   * A pass with no dependency declared: nothing to release, so nothing is read; the offset moves to
   * the newest completion. Reading completions only to drop them would cost database time and a
   * mapped row per completion on every pass.
   */
  private Pass skipAll(Fence fence) {
    handled.clear();
    long newest = deps.newestCompletion();
    if (newest > offset) {
      if (!mayCommit.getAsBoolean()) {
        log.warn("Dependency pass dropped: no longer the leader");
        return new Pass(0, List.of(), List.of(), offset);
      }
      deps.saveOffset(OFFSET, newest, fence);
      offset = newest;
    }
    return new Pass(0, List.of(), List.of(), offset);
  }

  /** Moves the stored offset past the handled completions that can no longer be overtaken. */
  private void advance(Fence fence) {
    if (handled.isEmpty()) {
      return;
    }
    Instant settled = deps.dbNow().minus(SETTLE);
    long next = offset;
    while (!handled.isEmpty() && handled.firstEntry().getValue().isBefore(settled)) {
      next = handled.pollFirstEntry().getKey();
    }
    if (next != offset) {
      deps.saveOffset(OFFSET, next, fence);
      offset = next;
    }
  }

  private record Target(TaskDefinition task, String windowKey) {}

  private void handle(
      TaskGraph graph,
      List<Completion> batch,
      List<Instance> created,
      List<Instance> rerun,
      Fence fence) {
    // The latest completion per downstream window decides; earlier ones in the batch add nothing.
    Map<String, Completion> byTarget = new LinkedHashMap<>();
    Map<String, Target> targets = new HashMap<>();
    List<Map.Entry<String, String>> lookups = new ArrayList<>();
    for (Completion c : batch) {
      for (TaskDefinition down : graph.downstreams(c.taskId())) {
        String k = down.id() + "/" + c.windowKey();
        byTarget.put(k, c);
        if (targets.putIfAbsent(k, new Target(down, c.windowKey())) == null) {
          lookups.add(Map.entry(down.id(), c.windowKey()));
          down.upstreams().forEach(up -> lookups.add(Map.entry(up, c.windowKey())));
        }
      }
    }
    if (byTarget.isEmpty()) {
      return;
    }
    Map<String, Instance> found = queries.windows(lookups);
    List<NewInstance> rows = new ArrayList<>();
    List<Decision> decisions = new ArrayList<>();
    List<Instance> toRerun = new ArrayList<>();
    Instant now = clock.instant();
    for (Map.Entry<String, Completion> e : byTarget.entrySet()) {
      Target t = targets.get(e.getKey());
      Completion c = e.getValue();
      TaskDefinition down = t.task();
      Instance existing = found.get(e.getKey());
      Instance source = found.get(c.taskId() + "/" + t.windowKey());
      if (source == null) {
        continue; // the upstream row was archived meanwhile; nothing to copy the window from
      }
      Window window = new Window(t.windowKey(), source.windowStart(), source.windowEnd());
      String blocker = null;
      String waiting = null;
      for (String up : down.upstreams()) {
        Instance u = found.get(up + "/" + t.windowKey());
        if (u == null) {
          waiting = waiting == null ? "waiting for upstream " + up + " (no instance)" : waiting;
        } else if (u.status() == InstanceStatus.SUCCESS) {
          continue;
        } else if (u.status().isFinished()) {
          blocker =
              blocker == null ? up + " " + u.status().name().toLowerCase(Locale.ROOT) : blocker;
        } else {
          waiting =
              waiting == null ? "waiting for upstream " + up + " (" + u.status() + ")" : waiting;
        }
      }
      if (down.paused()) {
        decisions.add(
            decision(down, t.windowKey(), existing, "task paused; upstreams not checked"));
      } else if (blocker != null) {
        if (existing == null) {
          rows.add(
              NewInstance.skipped(
                  down.id(),
                  window,
                  now,
                  Origin.DEPENDENCY,
                  down.timeout(),
                  "upstream " + blocker));
        } else {
          decisions.add(
              decision(
                  down,
                  t.windowKey(),
                  existing,
                  "upstream " + blocker + "; window exists, status " + existing.status()));
        }
      } else if (waiting != null) {
        decisions.add(decision(down, t.windowKey(), existing, waiting));
      } else if (existing == null) {
        rows.add(
            NewInstance.pending(
                down.id(),
                window,
                now,
                Origin.DEPENDENCY,
                down.timeout(),
                down.retry().maxRetries()));
      } else if (existing.status().isFinished() && existing.updatedAt().isBefore(c.at())) {
        // The upstream window succeeded again (re-run or backfill) after this window finished.
        toRerun.add(existing);
      } else {
        decisions.add(
            decision(down, t.windowKey(), existing, "window exists, status " + existing.status()));
      }
    }
    if (!mayCommit.getAsBoolean()) {
      return;
    }
    created.addAll(windows.create(rows, actor, fence));
    windows.recordDecisions(decisions, fence);
    for (Instance i : toRerun) {
      String reason = "upstreams of window " + i.windowKey() + " succeeded again; re-run";
      windows.rerun(i, actor, reason, fence).ifPresent(rerun::add);
    }
    if (!created.isEmpty() || !rerun.isEmpty()) {
      log.info(
          "Dependencies: {} completion(s), {} window(s) created, {} re-run",
          batch.size(),
          created.size(),
          rerun.size());
    }
  }

  private Decision decision(TaskDefinition down, String key, Instance existing, String reason) {
    return new Decision(down.id(), key, existing == null ? null : existing.id(), actor, reason);
  }
}
