package dev.carillon.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates Carillon's topics if they do not exist yet. */
public final class TopicAdmin {
  /** How long {@link #ensureTopics} waits for the cluster before giving up. */
  public static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** Partitions of {@link Topics#CONFIG}: a handful of keys, read whole by every retry service. */
  public static final int CONFIG_PARTITIONS = 1;

  private static final Logger log = LoggerFactory.getLogger(TopicAdmin.class);

  private TopicAdmin() {}

  /**
   * Creates {@link Topics#INSTANCES} and the compacted {@link Topics#CONFIG}; topics that exist
   * already are left as they are (their partition count and configuration are not changed).
   *
   * <p>Safe to call from every service at startup, concurrently: the cluster decides who creates a
   * topic, and the others see {@code TopicExistsException}, which counts as success.
   *
   * @param settings how to reach Kafka
   * @param instancePartitions partitions of the instances topic, which bounds how many workers
   *     consume in parallel
   * @param replication replication factor of both topics (1 for a single broker, 3 in production)
   * @throws IllegalStateException if Kafka does not answer within {@link #TIMEOUT} or refuses
   */
  public static void ensureTopics(
      KafkaSettings settings, int instancePartitions, short replication) {
    if (instancePartitions < 1) {
      throw new IllegalArgumentException(
          "instancePartitions must be at least 1, was " + instancePartitions);
    }
    if (replication < 1) {
      throw new IllegalArgumentException("replication must be at least 1, was " + replication);
    }
    List<NewTopic> topics =
        List.of(
            new NewTopic(Topics.INSTANCES, instancePartitions, replication),
            new NewTopic(Topics.CONFIG, CONFIG_PARTITIONS, replication)
                .configs(
                    Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)));
    Map<String, Object> props = settings.adminProps();
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    try (Admin admin = Admin.create(props)) {
      CreateTopicsResult result = admin.createTopics(topics);
      for (NewTopic topic : topics) {
        try {
          result.values().get(topic.name()).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          log.info(
              "Created topic {} ({} partitions, replication {}{})",
              topic.name(),
              topic.numPartitions(),
              topic.replicationFactor(),
              topic.configs() == null ? "" : ", " + topic.configs());
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException(
                "cannot create topic "
                    + topic.name()
                    + " on "
                    + settings.bootstrap()
                    + ": "
                    + e.getCause(),
                e.getCause());
          }
          log.debug("Topic {} exists already", topic.name());
        } catch (TimeoutException e) {
          throw new IllegalStateException(
              "Kafka at "
                  + settings.bootstrap()
                  + " did not create topic "
                  + topic.name()
                  + " within "
                  + TIMEOUT,
              e);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    }
  }
}
