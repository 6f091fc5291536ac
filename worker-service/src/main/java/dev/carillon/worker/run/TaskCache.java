package dev.carillon.worker.run;

import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.TaskStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Task definitions by id, each reused for a short time so that a burst of instances of one task
 * reads its definition once. An edited task (a new version) is seen within the time to live.
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

  /** The valid definition of {@code taskId}, or empty when it is missing or invalid. */
  public Optional<TaskDefinition> find(String taskId) {
    long now = nanoTime.getAsLong();
    Entry e = entries.get(taskId);
    if (e != null && now - e.loadedNanos() < ttlNanos) {
      return e.definition();
    }
    Optional<TaskDefinition> def = store.find(taskId);
    Entry fresh = new Entry(def, now);
    // Keep whichever load saw the newer version, so a slow reader cannot put an old one back.
    entries.merge(
        taskId,
        fresh,
        (old, neu) ->
            old.definition().isPresent()
                    && neu.definition().isPresent()
                    && old.definition().get().version() > neu.definition().get().version()
                ? old
                : neu);
    return def;
  }
}
