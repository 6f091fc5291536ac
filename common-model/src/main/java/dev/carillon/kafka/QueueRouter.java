package dev.carillon.kafka;

import java.util.Map;
import java.util.Set;

/**
 * The queue of each task, so that {@link InstancePublisher} sends an instance's id to its queue's
 * topic ({@link Topics#instances}). Implementations read the task definitions (cached); a task they
 * do not know goes to the default queue.
 */
@FunctionalInterface
public interface QueueRouter {
  /** Routes everything to the default queue: for publishers that never see other queues. */
  QueueRouter DEFAULT_ONLY = taskIds -> Map.of();

  /**
   * The queue of each of {@code taskIds} that has a definition; absent ids go to the default queue.
   *
   * @throws RuntimeException when the definitions cannot be read (the publish is then refused)
   */
  Map<String, String> queuesOf(Set<String> taskIds);
}
