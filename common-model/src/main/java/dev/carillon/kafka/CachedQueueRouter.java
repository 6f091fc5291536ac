package dev.carillon.kafka;

import dev.carillon.model.task.TaskDefinition;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A {@link QueueRouter} over the task definitions ({@code TaskStore::queues}), each answer reused
 * for a short time so that a burst of one task's instances reads its queue once. A task moved to
 * another queue is routed there within the time to live; its instances already published wait in
 * the old queue's topic, where no worker claims them (the claim checks the task's queue), until the
 * stranded scan publishes them again to the new one.
 *
 * <p>The answers kept are bounded ({@link #MAX_ENTRIES}): a publisher that sees a million distinct
 * tasks over its life (a million daily tasks) would otherwise keep an answer for each of them
 * forever. Past the bound, answers older than the time to live are dropped, and if that is not
 * enough, all of them (they are only reused for the time to live anyway). Thread-safe.
 */
public final class CachedQueueRouter implements QueueRouter {
  /** How long an answer is reused unless told otherwise. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(5);

  /** The most answers kept unless told otherwise. */
  public static final int MAX_ENTRIES = 100_000;

  private record Entry(String queue, long loadedNanos) {}

  private final Function<Set<String>, Map<String, String>> loader;
  private final long ttlNanos;
  private final int maxEntries;
  private final LongSupplier nanoTime;
  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  /**
   * @param loader the queue of each task that has a definition (e.g. {@code TaskStore::queues})
   * @param ttl how long an answer is reused
   * @param nanoTime the monotonic clock, {@code System::nanoTime} outside tests
   */
  public CachedQueueRouter(
      Function<Set<String>, Map<String, String>> loader, Duration ttl, LongSupplier nanoTime) {
    this(loader, ttl, MAX_ENTRIES, nanoTime);
  }

  /** As above, keeping at most {@code maxEntries} answers. */
  CachedQueueRouter(
      Function<Set<String>, Map<String, String>> loader,
      Duration ttl,
      int maxEntries,
      LongSupplier nanoTime) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be at least 1, was " + maxEntries);
    }
    this.loader = loader;
    this.ttlNanos = ttl.toNanos();
    this.maxEntries = maxEntries;
    this.nanoTime = nanoTime;
  }

  @Override
  public Map<String, String> queuesOf(Set<String> taskIds) {
    long now = nanoTime.getAsLong();
    Map<String, String> out = new HashMap<>();
    Set<String> missing = new HashSet<>();
    for (String id : taskIds) {
      Entry e = entries.get(id);
      if (e != null && now - e.loadedNanos() < ttlNanos) {
        out.put(id, e.queue());
      } else {
        missing.add(id);
      }
    }
    if (!missing.isEmpty()) {
      Map<String, String> loaded = loader.apply(missing);
      for (String id : missing) {
        String queue = loaded.getOrDefault(id, TaskDefinition.DEFAULT_QUEUE);
        entries.put(id, new Entry(queue, now));
        out.put(id, queue);
      }
      if (entries.size() > maxEntries) {
        entries.values().removeIf(e -> now - e.loadedNanos() >= ttlNanos);
        if (entries.size() > maxEntries) {
          entries.clear();
        }
      }
    }
    return out;
  }

  /** How many answers are kept; for tests. */
  int size() {
    return entries.size();
  }
}
