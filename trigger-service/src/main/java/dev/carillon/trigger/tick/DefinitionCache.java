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
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
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
 * <p>Changed rows are read in pages of at most {@link #PAGE} ids, one statement each: a new
 * leader's first refresh reads every row, and at a million tasks one statement took 21.6 s, above
 * the default {@code db.statement-timeout} of 15 s, so such a trigger could never finish its first
 * tick (docs/benchmarks.md, "A million schedules"). A page also bounds the result held at once.
 *
 * <p>One cache serves the whole trigger service: the tick loop ({@link TriggerLoop}), the
 * dependency releaser, the event consumer and the condition poller each need the definitions, and
 * with a cache of their own each held every row again (about 450 bytes a task apiece, which capped
 * the default heap near 410,000 tasks; docs/benchmarks.md, "The ceiling"). Shared, a row changed is
 * read once, by whichever of them refreshes first; the others find the fingerprint unchanged. The
 * row stamps keep it exact across leaderships, so it is not cleared when leadership changes: a
 * leader elected again reads only the rows changed meanwhile.
 *
 * <p>Thread-safe: a refresh holds the cache's lock while it reads, so the loops wait for one read
 * instead of each making its own; the lists it returns are immutable. The lock is taken
 * interruptibly, so that a loop stopped while another reads a large table stops at once instead of
 * waiting for that read ({@link DefinitionsUnavailableException}).
 */
public final class DefinitionCache {
  private static final Logger log = LoggerFactory.getLogger(DefinitionCache.class);

  private record Entry(LoadedTask task, long stamp) {}

  /**
   * The most task rows one statement reads: 1/50 of a million, whose single read took 21.6 s. A
   * page is one index probe per id (see {@code TriggerQueries.loadTasks}): 46 ms for 20,000 ids in
   * a table of a million rows, measured with {@code EXPLAIN ANALYZE}.
   */
  static final int PAGE = 20_000;

  private final TriggerQueries queries;
  private final int page;
  private final ReentrantLock lock = new ReentrantLock();
  // Sorted as a TreeMap would be, and safe to read without the lock: queueOf is asked by the
  // dispatcher's thread while a refresh may be loading rows.
  private final Map<String, Entry> entries = new ConcurrentSkipListMap<>();
  private final Set<String> reported = new HashSet<>();
  private final Set<String> movedOneShots = new TreeSet<>();
  private TaskFingerprint fingerprint;
  private List<TaskDefinition> valid = List.of();
  private int invalid;
  private int lastReadStatements;
  // Counts the refreshes that found a change, and the clears: while it stays the same, so do the
  // rows known.
  private long generation;

  /** A cache reading through {@code queries}. */
  public DefinitionCache(TriggerQueries queries) {
    this(queries, PAGE);
  }

  /** A cache reading at most {@code page} rows a statement. */
  DefinitionCache(TriggerQueries queries, int page) {
    if (page < 1) {
      throw new IllegalArgumentException("page must be at least 1, was " + page);
    }
    this.queries = queries;
    this.page = page;
  }

  /**
   * The valid definitions, reloading changed rows first; sorted by task id. The same list instance
   * comes back while no row changed.
   */
  public List<TaskDefinition> refresh() {
    return locked(this::refreshLocked);
  }

  private List<TaskDefinition> refreshLocked() {
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
    // Sorted, so that a page's probes walk the primary key's index in (near enough: Java's order
    // is not the database's collation) its own order.
    changed.sort(null);
    int statements = 0;
    for (int from = 0; from < changed.size(); from += page) {
      List<String> ids = changed.subList(from, Math.min(changed.size(), from + page));
      statements++;
      for (StampedTask s : queries.loadTasks(ids)) {
        Entry before = entries.put(s.task().id(), new Entry(s.task(), s.stamp()));
        if (before != null && movedOneShot(before.task(), s.task())) {
          movedOneShots.add(s.task().id());
        }
        s.task().error().ifPresent(e -> reportInvalid(s.task(), e.getMessage()));
      }
    }
    lastReadStatements = statements;
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
        "Task definitions {}: {} loaded in {} statement(s), {} removed; {} valid, {} invalid; in {}"
            + " ms",
        fingerprint == null ? "read" : "changed",
        changed.size(),
        statements,
        removed,
        defs.size(),
        bad,
        (System.nanoTime() - t0) / 1_000_000);
    fingerprint = now;
    valid = List.copyOf(defs);
    invalid = bad;
    generation++;
    return valid;
  }

  /**
   * The one-shot tasks whose instant a reload found changed (a new instant, or a task that became a
   * one-shot) since the last call, and forgets them. A change of its window kind or zone alone is
   * not a move: the one fire already decided stays decided.
   */
  List<String> takeMovedOneShots() {
    return locked(
        () -> {
          List<String> out = List.copyOf(movedOneShots);
          movedOneShots.clear();
          return out;
        });
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

  /**
   * The queue of {@code taskId}'s valid definition as the cache holds it (the last refresh, or one
   * under way), or empty when the task is unknown or its row failed validation. Does not take the
   * lock, so a publisher routing instances never waits for a refresh's read.
   */
  public Optional<String> queueOf(String taskId) {
    Entry e = entries.get(taskId);
    return e == null ? Optional.empty() : e.task().definition().map(TaskDefinition::queue);
  }

  /**
   * A copy of the ids of every task row known at the last refresh, valid or not (deleted ones are
   * not).
   */
  Set<String> known() {
    return locked(() -> Set.copyOf(entries.keySet()));
  }

  /**
   * Drops from {@code byTaskId} every key that is not a task row known at the last refresh (a
   * deleted task's state goes with it), under the lock and without copying the ids.
   */
  void retainKnown(Map<String, ?> byTaskId) {
    locked(() -> byTaskId.keySet().retainAll(entries.keySet()));
  }

  /**
   * A number that changes whenever a refresh found the rows changed (or the cache was cleared): a
   * caller that pruned its own per-task state by {@link #retainKnown} at one value need not prune
   * again until it changes. Pruning costs a sorted-map lookup per entry, which at a million tasks
   * was most of an idle tick (0.25 s at 300,000 tasks) when done on every tick.
   */
  long generation() {
    return locked(() -> generation);
  }

  /** How many statements the last refresh that found a change read changed rows with. */
  int lastReadStatements() {
    return locked(() -> lastReadStatements);
  }

  /** Task rows that failed validation at the last refresh. */
  int invalidCount() {
    return locked(() -> invalid);
  }

  /** Forgets everything, so the next refresh reloads every row. */
  public void clear() {
    locked(
        () -> {
          entries.clear();
          movedOneShots.clear();
          fingerprint = null;
          generation++;
          valid = List.of();
          return null;
        });
  }

  private <T> T locked(Supplier<T> body) {
    try {
      lock.lockInterruptibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DefinitionsUnavailableException(
          "interrupted while another loop read the task definitions", e);
    }
    try {
      return body.get();
    } finally {
      lock.unlock();
    }
  }

  /** The definitions could not be read: the thread was stopped while it waited for the cache. */
  public static final class DefinitionsUnavailableException extends RuntimeException {
    DefinitionsUnavailableException(String message, Throwable cause) {
      super(message, cause);
    }
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
