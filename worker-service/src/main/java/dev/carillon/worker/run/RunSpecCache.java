package dev.carillon.worker.run;

import dev.carillon.model.task.RunSpec;
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
 * What a run needs of each task ({@link RunSpec}), by task id, each reused for a short time so that
 * a burst of instances of one task reads it once, and a claim batch of many tasks reads all of them
 * in one query ({@link #findAll}). An edited task (a new version) is seen within the time to live.
 * Thread-safe.
 */
public final class RunSpecCache {
  private record Entry(Optional<RunSpec> spec, long loadedNanos) {}

  private final TaskStore store;
  private final long ttlNanos;
  private final LongSupplier nanoTime;
  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  /**
   * @param store where definitions live
   * @param ttl how long an entry is reused; zero reads every time
   * @param nanoTime the monotonic clock, {@code System::nanoTime} outside tests
   */
  public RunSpecCache(TaskStore store, Duration ttl, LongSupplier nanoTime) {
    this.store = store;
    this.ttlNanos = ttl.toNanos();
    this.nanoTime = nanoTime;
  }

  /**
   * The run specs of {@code taskIds}, each present or empty (missing or not runnable); the ids not
   * fresh in the cache are read in one query.
   */
  public Map<String, Optional<RunSpec>> findAll(Collection<String> taskIds) {
    long now = nanoTime.getAsLong();
    Map<String, Optional<RunSpec>> out = new HashMap<>();
    Set<String> missing = new LinkedHashSet<>();
    for (String id : taskIds) {
      Entry e = entries.get(id);
      if (e != null && now - e.loadedNanos() < ttlNanos) {
        out.put(id, e.spec());
      } else {
        missing.add(id);
      }
    }
    if (missing.isEmpty()) {
      return out;
    }
    Map<String, RunSpec> loaded = store.runSpecs(missing);
    for (String id : missing) {
      Optional<RunSpec> def = Optional.ofNullable(loaded.get(id));
      // Keep whichever load saw the newer version, so a slow reader cannot put an old one back.
      entries.merge(
          id,
          new Entry(def, now),
          (old, neu) ->
              old.spec().isPresent()
                      && neu.spec().isPresent()
                      && old.spec().get().version() > neu.spec().get().version()
                  ? old
                  : neu);
      out.put(id, def);
    }
    return out;
  }
}
