package dev.carillon.trigger.dispatch;

import dev.carillon.kafka.QueueRouter;
import dev.carillon.trigger.tick.DefinitionCache;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Routes the trigger's instances by the definitions its ticks already hold ({@link
 * DefinitionCache}), asking {@code fallback} (the database, cached) only for tasks the cache does
 * not know or holds as invalid.
 *
 * <p>Why: the publisher needs each instance's queue, and with a cache of its own over the
 * definitions table it read the queue of every task it had not seen in the last few seconds, one
 * statement per publish batch. When every instance is a different task (a million daily tasks, or
 * the bench's burst) that was a definitions read per instance on the dispatcher's path: 15 µs of
 * PostgreSQL's execution per instance of a 100,000 burst (docs/benchmarks.md, "Item 1: where the
 * CPU goes"). The tick created those instances from the same definitions, so their queues are
 * already in memory, and as fresh as the tick's: a task moved to another queue is routed there from
 * the first tick that sees the change.
 */
public final class DefinitionQueueRouter implements QueueRouter {
  private final DefinitionCache definitions;
  private final QueueRouter fallback;

  /**
   * @param definitions the trigger's definitions
   * @param fallback for tasks the cache does not hold valid
   */
  public DefinitionQueueRouter(DefinitionCache definitions, QueueRouter fallback) {
    this.definitions = Objects.requireNonNull(definitions, "definitions");
    this.fallback = Objects.requireNonNull(fallback, "fallback");
  }

  @Override
  public Map<String, String> queuesOf(Set<String> taskIds) {
    Map<String, String> out = new HashMap<>();
    Set<String> unknown = new HashSet<>();
    for (String id : taskIds) {
      Optional<String> queue = definitions.queueOf(id);
      if (queue.isPresent()) {
        out.put(id, queue.get());
      } else {
        unknown.add(id);
      }
    }
    if (!unknown.isEmpty()) {
      out.putAll(fallback.queuesOf(unknown));
    }
    return out;
  }
}
