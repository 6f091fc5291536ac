package dev.carillon.kafka;

import dev.carillon.model.task.TaskDefinition;

/** Names of Carillon's Kafka topics. */
public final class Topics {
  /**
   * Ids of instances of the {@code default} queue ready to run, published by the trigger, the retry
   * service, workers giving runs back and {@code schedctl}, and consumed by workers; every other
   * queue has its own topic ({@link #instances}). The producer spreads records over the partitions
   * at random (see {@link InstancePublisher}): nothing relies on their order, and no task's
   * instances are tied to one partition, and so to one worker.
   */
  public static final String INSTANCES = "carillon.instances";

  /**
   * Operator overrides (retry, backoff, rate limits) keyed by task id or {@code default}.
   * Compacted: the latest value per key is the configuration.
   */
  public static final String CONFIG = "carillon.config";

  private Topics() {}

  /**
   * The instances topic of {@code queue}: {@code base} itself for the default queue, {@code
   * base.<queue>} for any other ({@code carillon.instances.gpu}). A queue name matches {@link
   * TaskDefinition#QUEUE_PATTERN}, so the result is a valid topic name.
   *
   * @param base the instances topic of the default queue ({@link #INSTANCES} unless configured)
   */
  public static String instances(String base, String queue) {
    return TaskDefinition.DEFAULT_QUEUE.equals(queue) ? base : base + "." + queue;
  }
}
