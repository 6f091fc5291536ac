package dev.carillon.worker.run;

import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.TaskStore;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Task definitions by id, each reused for a short time so that a burst of instances of one task
 * reads its definition once, and a claim batch of many tasks reads all of its definitions in one
 * query ({@link #findAll}). An edited task (a new version) is seen within the time to live.
 * Thread-safe.
 */
public final class TaskCache {
  private record Entry(Optional<TaskDefinition> definition, long loadedNanos) {}

  private final TaskStore store;
  private final long ttlNanos;
  private final LongSupplier nanoTime;
  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  /**
   * @param store where definitions live
   * @param ttl how long an entry is reused; zero reads every time
   * @param nanoTime the monotonic clock, {@code System::nanoTime} outside tests
   */
  public TaskCache(TaskStore store, Duration ttl, LongSupplier nanoTime) {
    this.store = store;
    this.ttlNanos = ttl.toNanos();
    this.nanoTime = nanoTime;
  }

  /**
   * The definitions of {@code taskIds}, each present or empty (missing or invalid); the ids not
   * fresh in the cache are read in one query.
   */
  public Map<String, Optional<TaskDefinition>> findAll(Collection<String> taskIds) {
    long now = nanoTime.getAsLong();
    Map<String, Optional<TaskDefinition>> out = new HashMap<>();
    Set<String> missing = new LinkedHashSet<>();
    for (String id : taskIds) {
      Entry e = entries.get(id);
      if (e != null && now - e.loadedNanos() < ttlNanos) {
        out.put(id, e.definition());
      } else {
        missing.add(id);
      }
    }
    if (missing.isEmpty()) {
      return out;
    }
    Map<String, TaskDefinition> loaded = store.findAll(missing);
    for (String id : missing) {
      Optional<TaskDefinition> def = Optional.ofNullable(loaded.get(id));
      // Keep whichever load saw the newer version, so a slow reader cannot put an old one back.
      entries.merge(
          id,
          new Entry(def, now),
          (old, neu) ->
              old.definition().isPresent()
                      && neu.definition().isPresent()
                      && old.definition().get().version() > neu.definition().get().version()
                  ? old
                  : neu);
      out.put(id, def);
    }
    return out;
  }
}
