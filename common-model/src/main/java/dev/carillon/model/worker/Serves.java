package dev.carillon.model.worker;

import dev.carillon.model.task.TaskDefinition;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a worker serves: the queues it consumes and the handlers it can run. It claims an instance
 * only when the instance's task is in one of {@code queues} with one of {@code handlers}.
 *
 * @param queues at least one queue name ({@link TaskDefinition#QUEUE_PATTERN})
 * @param handlers the handlers it has (may be empty: such a worker claims nothing)
 */
public record Serves(Set<String> queues, Set<String> handlers) {
  public Serves {
    queues = Set.copyOf(new TreeSet<>(queues));
    handlers = Set.copyOf(new TreeSet<>(handlers));
    if (queues.isEmpty()) {
      throw new IllegalArgumentException("a worker serves at least one queue");
    }
    for (String q : queues) {
      if (!TaskDefinition.QUEUE_PATTERN.matcher(q).matches()) {
        throw new IllegalArgumentException(
            "queue '" + q + "' must match " + TaskDefinition.QUEUE_PATTERN.pattern());
      }
    }
  }

  /** Whether an instance of a task in {@code queue} with {@code handler} may be claimed. */
  public boolean covers(String queue, String handler) {
    return queues.contains(queue) && handlers.contains(handler);
  }

  /** The queues, sorted. */
  public TreeSet<String> sortedQueues() {
    return new TreeSet<>(queues);
  }

  /** The handlers, sorted. */
  public TreeSet<String> sortedHandlers() {
    return new TreeSet<>(handlers);
  }
}
