package dev.carillon.trigger.tick;

import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.LoadedTask;
import dev.carillon.store.TriggerQueries;
import dev.carillon.store.TriggerQueries.StampedTask;
import dev.carillon.store.TriggerQueries.TaskFingerprint;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task definitions the trigger evaluates, kept in memory between ticks. Each {@link #refresh()}
 * asks the database for a one-row fingerprint; only when it changed are the row stamps read and
 * only the changed rows loaded and validated again, so a tick over 10,000 unchanged tasks parses no
 * cron expression.
 *
 * <p>A row that fails validation (edited by hand in SQL) is left out and logged at ERROR once per
 * (task, version, problem); every other task keeps firing.
 *
 * <p>Not thread-safe: owned by one loop ({@link TriggerLoop}, the dependency releaser, the event
 * consumer or the condition poller), which serializes its passes.
 */
public final class DefinitionCache {
  private static final Logger log = LoggerFactory.getLogger(DefinitionCache.class);

  private record Entry(LoadedTask task, long stamp) {}

  private final TriggerQueries queries;
  private final Map<String, Entry> entries = new TreeMap<>();
  private final Set<String> reported = new HashSet<>();
  private final Set<String> movedOneShots = new TreeSet<>();
  private TaskFingerprint fingerprint;
  private List<TaskDefinition> valid = List.of();
  private int invalid;

  /** A cache reading through {@code queries}. */
  public DefinitionCache(TriggerQueries queries) {
    this.queries = queries;
  }

  /** The valid definitions, reloading changed rows first; sorted by task id. */
  public List<TaskDefinition> refresh() {
    TaskFingerprint now = queries.taskFingerprint();
    if (now.equals(fingerprint)) {
      return valid;
    }
    long t0 = System.nanoTime();
    Map<String, Long> stamps = queries.taskStamps();
    List<String> changed = new ArrayList<>();
    stamps.forEach(
        (id, stamp) -> {
          Entry e = entries.get(id);
          if (e == null || e.stamp() != stamp) {
            changed.add(id);
          }
        });
    int removed = 0;
    for (var it = entries.keySet().iterator(); it.hasNext(); ) {
      if (!stamps.containsKey(it.next())) {
        it.remove();
        removed++;
      }
    }
    for (StampedTask s : queries.loadTasks(changed)) {
      Entry before = entries.put(s.task().id(), new Entry(s.task(), s.stamp()));
      if (before != null && movedOneShot(before.task(), s.task())) {
        movedOneShots.add(s.task().id());
      }
      s.task().error().ifPresent(e -> reportInvalid(s.task(), e.getMessage()));
    }
    List<TaskDefinition> defs = new ArrayList<>(entries.size());
    int bad = 0;
    for (Entry e : entries.values()) {
      if (e.task().definition().isPresent()) {
        defs.add(e.task().definition().get());
      } else {
        bad++;
      }
    }
    log.info(
        "Task definitions {}: {} loaded, {} removed; {} valid, {} invalid; in {} ms",
        fingerprint == null ? "read" : "changed",
        changed.size(),
        removed,
        defs.size(),
        bad,
        (System.nanoTime() - t0) / 1_000_000);
    fingerprint = now;
    valid = List.copyOf(defs);
    invalid = bad;
    return valid;
  }

  /**
   * The one-shot tasks whose instant a reload found changed (a new instant, or a task that became a
   * one-shot) since the last call, and forgets them. A change of its window kind or zone alone is
   * not a move: the one fire already decided stays decided.
   */
  List<String> takeMovedOneShots() {
    if (movedOneShots.isEmpty()) {
      return List.of();
    }
    List<String> out = List.copyOf(movedOneShots);
    movedOneShots.clear();
    return out;
  }

  private static boolean movedOneShot(LoadedTask before, LoadedTask after) {
    Optional<TaskDefinition> now = after.definition();
    return now.isPresent()
        && now.get().trigger() instanceof AtTrigger at
        && !before
            .definition()
            .map(d -> d.trigger() instanceof AtTrigger was && was.at().equals(at.at()))
            .orElse(false);
  }

  /** The ids of every task row known at the last refresh, valid or not (deleted ones are not). */
  Set<String> known() {
    return entries.keySet();
  }

  /** Task rows that failed validation at the last refresh. */
  int invalidCount() {
    return invalid;
  }

  /** Forgets everything, so the next refresh reloads every row (e.g. when leadership changes). */
  public void clear() {
    entries.clear();
    movedOneShots.clear();
    fingerprint = null;
    valid = List.of();
  }

  private void reportInvalid(LoadedTask task, String problem) {
    if (reported.add(task.id() + "\u0000" + task.version() + "\u0000" + problem)) {
      log.error(
          "Task {} (version {}) is invalid and will not fire until fixed: {}",
          task.id(),
          task.version(),
          problem);
    }
  }
}
