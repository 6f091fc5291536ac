package dev.carillon.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
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

  /**
   * Creates the instances topic {@code queueTopic} of a queue (see {@link Topics#instances}) if it
   * does not exist, with the partitions and replication of {@code base}, the default queue's topic,
   * or the broker's defaults when {@code base} does not exist either. A topic that exists is left
   * as it is.
   *
   * @throws IllegalStateException if Kafka does not answer within {@link #TIMEOUT} or refuses
   */
  public static void ensureQueueTopic(KafkaSettings settings, String base, String queueTopic) {
    ensureQueueTopics(settings, base, List.of(queueTopic));
  }

  /**
   * Waits until every partition of {@code topic} has a leader that serves it (answers a
   * list-offsets request): the controller acknowledges a creation before the brokers know the new
   * partitions, and a producer that sent to one of them at that moment was seen to wait out its
   * whole delivery timeout.
   */
  private static void awaitLeaders(Admin admin, String topic, long deadlineNanos)
      throws InterruptedException, TimeoutException {
    while (true) {
      try {
        TopicDescription d =
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .get(topic);
        if (d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
          Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
          d.partitions()
              .forEach(
                  p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
          admin.listOffsets(latest).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          return;
        }
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof RetriableException)) {
          throw new IllegalStateException(
              "cannot describe topic " + topic + ": " + e.getCause(), e.getCause());
        }
      }
      if (System.nanoTime() - deadlineNanos >= 0) {
        throw new TimeoutException("topic " + topic + " has partitions without a leader");
      }
      // The admin client has no call that waits for leaders; the deadline bounds this loop.
      Thread.sleep(20);
    }
  }

  /** {@link #ensureQueueTopic} for several topics, with one admin client. */
  public static void ensureQueueTopics(
      KafkaSettings settings, String base, Collection<String> queueTopics) {
    Map<String, Object> props = settings.adminProps();
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    try (Admin admin = Admin.create(props)) {
      Optional<Integer> partitions = Optional.empty();
      Optional<Short> replication = Optional.empty();
      try {
        TopicDescription d =
            admin
                .describeTopics(List.of(base))
                .allTopicNames()
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .get(base);
        partitions = Optional.of(d.partitions().size());
        replication = Optional.of((short) d.partitions().get(0).replicas().size());
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw new IllegalStateException(
              "cannot describe topic " + base + " on " + settings.bootstrap() + ": " + e.getCause(),
              e.getCause());
        }
      }
      List<NewTopic> missing = new ArrayList<>();
      for (String t : queueTopics) {
        if (!t.equals(base)) {
          missing.add(new NewTopic(t, partitions, replication));
        }
      }
      CreateTopicsResult result = admin.createTopics(missing);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      for (NewTopic topic : missing) {
        try {
          result.values().get(topic.name()).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          log.info(
              "Created queue topic {} ({} partitions, like {})",
              topic.name(),
              partitions.map(String::valueOf).orElse("the broker's default"),
              base);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw new IllegalStateException(
                "cannot create topic " + topic.name() + ": " + e.getCause(), e.getCause());
          }
        }
        awaitLeaders(admin, topic.name(), deadline);
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kafka at " + settings.bootstrap() + " did not answer within " + TIMEOUT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating queue topics", e);
    }
  }
}
