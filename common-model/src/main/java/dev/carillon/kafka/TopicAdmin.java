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
   * @param queue the queue whose instances topic this is, other than the default one: the
   *     create-topics step makes it only when {@code kafka.queues} names the queue
   */
  public record Need(String topic, int minPartitions, boolean compacted, Optional<String> queue) {
    public Need {
      Objects.requireNonNull(topic, "topic");
      Objects.requireNonNull(queue, "queue");
      if (minPartitions < 1) {
        throw new IllegalArgumentException(
            "minPartitions of " + topic + " must be at least 1, was " + minPartitions);
      }
    }

    /** A need of a topic that is no queue's own (the default instances topic, the config topic). */
    public Need(String topic, int minPartitions, boolean compacted) {
      this(topic, minPartitions, compacted, Optional.empty());
    }

    /**
     * The need of {@code queue}'s instances topic ({@link Topics#instances}): {@code base} itself
     * for the default queue.
     */
    public static Need instances(String base, String queue, int minPartitions) {
      String topic = Topics.instances(base, queue);
      return new Need(
          topic, minPartitions, false, topic.equals(base) ? Optional.empty() : Optional.of(queue));
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
          + " carillon-topics Job, or compose's topics service)"
          + need.queue().map(q -> " with queue " + q + " in kafka.queues,").orElse("")
          + " with at least "
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
   * @see #ensureTopics(KafkaSettings, int, short, Collection)
   */
  public static void ensureTopics(
      KafkaSettings settings, int instancePartitions, short replication) {
    ensureTopics(settings, instancePartitions, replication, List.of());
  }

  /**
   * Creates {@link Topics#INSTANCES}, the instances topic of each of {@code queues} ({@link
   * Topics#instances}, with the same partitions) and the compacted {@link Topics#CONFIG}; topics
   * that exist already are left as they are (their partition count and configuration are not
   * changed). Returns once every partition of each topic it created has a leader, so that services
   * started next find them ready.
   *
   * <p>Safe to call concurrently: the cluster decides who creates a topic, and the others see
   * {@code TopicExistsException}, which counts as success. Services never call it: they check their
   * topics ({@link #require}) and create none.
   *
   * @param settings how to reach Kafka
   * @param instancePartitions partitions of each instances topic, which bounds how many workers
   *     consume a queue in parallel
   * @param replication replication factor of every topic (1 for a single broker, 3 in production)
   * @param queues the queues whose own instances topics to create besides the default queue's (the
   *     default queue, if named, is {@link Topics#INSTANCES} itself)
   * @throws IllegalStateException if Kafka does not answer within {@link #TIMEOUT} or refuses
   */
  public static void ensureTopics(
      KafkaSettings settings,
      int instancePartitions,
      short replication,
      Collection<String> queues) {
    if (instancePartitions < 1) {
      throw new IllegalArgumentException(
          "instancePartitions must be at least 1, was " + instancePartitions);
    }
    if (replication < 1) {
      throw new IllegalArgumentException("replication must be at least 1, was " + replication);
    }
    List<NewTopic> topics = new ArrayList<>();
    topics.add(new NewTopic(Topics.INSTANCES, instancePartitions, replication));
    queues.stream()
        .map(q -> Topics.instances(Topics.INSTANCES, q))
        .filter(t -> !t.equals(Topics.INSTANCES))
        .distinct()
        .forEach(t -> topics.add(new NewTopic(t, instancePartitions, replication)));
    topics.add(
        new NewTopic(Topics.CONFIG, CONFIG_PARTITIONS, replication)
            .configs(
                Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)));
    Map<String, Object> props = settings.adminProps();
    props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    try (Admin admin = Admin.create(props)) {
      CreateTopicsResult result = admin.createTopics(topics);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      for (NewTopic topic : topics) {
        try {
          result.values().get(topic.name()).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
          log.info(
              "Created topic {} ({} partitions, replication {}{})",
              topic.name(),
              topic.numPartitions(),
              topic.replicationFactor(),
              topic.configs() == null ? "" : ", " + topic.configs());
          awaitLeaders(admin, topic.name(), deadline);
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

  /** Whether a topic exists, as {@link #exists} sees it. */
  public enum Presence {
    /** The topic exists and every partition's leader serves it. */
    PRESENT,
    /**
     * The topic exists but some partition has no leader serving it yet (it was just created): a
     * producer sending now can be stuck until its delivery timeout.
     */
    NOT_READY,
    /** The cluster says the topic does not exist. */
    MISSING,
    /** This principal may not describe the topic. */
    NOT_AUTHORIZED
  }

  /**
   * Asks the cluster whether {@code topic} exists and is ready to take records, without creating
   * it: a producer's metadata request would let a broker with {@code auto.create.topics.enable}
   * create it with the broker's defaults.
   *
   * @param admin an admin client of the caller's, which stays open
   * @param timeout how long to wait for each of the (at most two) answers
   * @throws IllegalStateException when the cluster does not answer within {@code timeout} or fails
   *     otherwise
   */
  public static Presence exists(Admin admin, String topic, Duration timeout) {
    try {
      TopicDescription d =
          admin
              .describeTopics(List.of(topic))
              .topicNameValues()
              .get(topic)
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (!d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
        return Presence.NOT_READY;
      }
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      d.partitions()
          .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      try {
        admin.listOffsets(latest).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof RetriableException) {
          return Presence.NOT_READY;
        }
        throw e;
      }
      return Presence.PRESENT;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Presence.MISSING;
      }
      if (e.getCause() instanceof AuthorizationException) {
        return Presence.NOT_AUTHORIZED;
      }
      throw new IllegalStateException(
          "cannot describe topic " + topic + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("topic " + topic + " not described within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while describing topic " + topic, e);
    }
  }
}
