package dev.carillon.kafka;

import dev.carillon.model.CarillonException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carillon's topics: created by the deploy step ({@link #ensureTopics}, the {@code create-topics}
 * command), and checked by every service at start ({@link #require}), so that a topic the broker
 * would auto-create with its own defaults (one partition, {@code delete} cleanup) is refused
 * instead of silently leaving workers idle or letting configuration expire.
 */
public final class TopicAdmin {
  /** How long {@link #ensureTopics} waits for the cluster before giving up. */
  public static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** Partitions of {@link Topics#CONFIG}: a handful of keys, read whole by every retry service. */
  public static final int CONFIG_PARTITIONS = 1;

  /** Partitions of {@link Topics#INSTANCES} unless {@code kafka.instances-partitions} says. */
  public static final int DEFAULT_INSTANCE_PARTITIONS = 6;

  private static final Logger log = LoggerFactory.getLogger(TopicAdmin.class);

  /**
   * What a service needs of one topic.
   *
   * @param minPartitions the fewest partitions it accepts
   * @param compacted whether the topic must be compacted (the config topic: its latest value per
   *     key is the configuration, which must not expire)
   */
  public record Need(String topic, int minPartitions, boolean compacted) {
    public Need {
      Objects.requireNonNull(topic, "topic");
      if (minPartitions < 1) {
        throw new IllegalArgumentException(
            "minPartitions of " + topic + " must be at least 1, was " + minPartitions);
      }
    }
  }

  /** A topic a service needs is missing, too small or not compacted; the service must not start. */
  public static final class TopicException extends CarillonException {
    private static final long serialVersionUID = 1L;

    TopicException(String message) {
      super(message);
    }
  }

  private TopicAdmin() {}

  /**
   * Checks every need against the cluster, in one describe call (and one config describe when a
   * need asks for compaction).
   *
   * @throws TopicException naming each topic that is missing, not visible to this principal, has
   *     fewer partitions than needed or is not compacted, and what to do about it
   * @throws IllegalStateException when Kafka does not answer within {@link #TIMEOUT}
   */
  public static void require(KafkaSettings settings, List<Need> needs) {
    Map<String, Object> props = settings.adminProps();
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    List<String> problems = new ArrayList<>();
    try (Admin admin = Admin.create(props)) {
      Map<String, org.apache.kafka.common.KafkaFuture<TopicDescription>> described =
          admin
              .describeTopics(needs.stream().map(Need::topic).distinct().toList())
              .topicNameValues();
      for (Need need : needs) {
        TopicDescription d;
        try {
          d = described.get(need.topic()).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          problems.add(describeFailure(settings, need, e.getCause()));
          continue;
        }
        int partitions = d.partitions().size();
        if (partitions < need.minPartitions()) {
          problems.add(
              "topic "
                  + need.topic()
                  + " has "
                  + partitions
                  + " partition(s) but at least "
                  + need.minPartitions()
                  + " are needed (kafka.instances-partitions): add partitions (kafka-topics.sh"
                  + " --alter --topic "
                  + need.topic()
                  + " --partitions "
                  + need.minPartitions()
                  + ") or lower kafka.instances-partitions");
        }
        if (need.compacted()) {
          String policy = cleanupPolicy(admin, need.topic());
          if (!policy.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
            problems.add(
                "topic "
                    + need.topic()
                    + " has cleanup.policy="
                    + policy
                    + " but must be compacted, or its configuration expires with the retention:"
                    + " kafka-configs.sh --alter --entity-type topics --entity-name "
                    + need.topic()
                    + " --add-config cleanup.policy=compact");
          }
        }
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kafka at " + settings.bootstrap() + " did not describe the topics within " + TIMEOUT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while checking topics", e);
    }
    if (!problems.isEmpty()) {
      throw new TopicException(String.join("; ", problems));
    }
    log.info("Topics checked: {}", needs);
  }

  /**
   * Creates ACL bindings (existing ones are left as they are: Kafka adds a binding only once).
   *
   * @throws IllegalStateException naming the binding Kafka refused, e.g. because this principal is
   *     not allowed to alter the cluster's ACLs
   */
  public static void createAcls(KafkaSettings settings, List<AclBinding> bindings) {
    Map<String, Object> props = settings.adminProps();
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    try (Admin admin = Admin.create(props)) {
      Map<AclBinding, org.apache.kafka.common.KafkaFuture<Void>> results =
          admin.createAcls(bindings).values();
      for (Map.Entry<AclBinding, org.apache.kafka.common.KafkaFuture<Void>> r :
          results.entrySet()) {
        try {
          r.getValue().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          throw new IllegalStateException(
              "Kafka at "
                  + settings.bootstrap()
                  + " refused ACL "
                  + r.getKey()
                  + ": "
                  + e.getCause(),
              e.getCause());
        }
      }
      log.info("ACLs in place: {} binding(s)", bindings.size());
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kafka at " + settings.bootstrap() + " did not create the ACLs within " + TIMEOUT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating ACLs", e);
    }
  }

  private static String describeFailure(KafkaSettings settings, Need need, Throwable cause) {
    if (cause instanceof UnknownTopicOrPartitionException) {
      return "topic "
          + need.topic()
          + " does not exist on Kafka at "
          + settings.bootstrap()
          + ": create it with the create-topics step (java -jar <service>.jar create-topics, the"
          + " carillon-topics Job, or compose's topics service) with at least "
          + need.minPartitions()
          + " partition(s)";
    }
    if (cause instanceof AuthorizationException) {
      return "this service's Kafka principal may not describe topic "
          + need.topic()
          + " ("
          + cause.getMessage()
          + "): grant it DESCRIBE on the topic (see docs/security.md)";
    }
    throw new IllegalStateException(
        "cannot describe topic " + need.topic() + " on " + settings.bootstrap() + ": " + cause,
        cause);
  }

  private static String cleanupPolicy(Admin admin, String topic)
      throws InterruptedException, TimeoutException {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    try {
      Config config =
          admin
              .describeConfigs(List.of(resource))
              .all()
              .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              .get(resource);
      ConfigEntry entry = config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
      return entry == null || entry.value() == null ? "delete" : entry.value();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AuthorizationException) {
        throw new TopicException(
            "this service's Kafka principal may not read the configuration of topic "
                + topic
                + ": grant it DESCRIBE_CONFIGS on the topic (see docs/security.md)");
      }
      throw new IllegalStateException(
          "cannot read the configuration of topic " + topic + ": " + e.getCause(), e.getCause());
    }
  }

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
