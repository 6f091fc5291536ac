package dev.carillon.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The Kafka ACLs that give each Carillon principal what its clients do and nothing more, on a
 * cluster whose authorizer allows nothing without an ACL. The one list behind the create-topics
 * step ({@code kafka.acl.*}) and the table in docs/security.md. The instances topic's rights apply
 * to each queue's instances topic the step creates ({@code kafka.queues}).
 *
 * <ul>
 *   <li>trigger: WRITE and DESCRIBE on the instances topic, READ on its event consumer group (and,
 *       granted by the operator per topic, READ on the topics its event tasks subscribe to);
 *   <li>worker: READ and DESCRIBE on the instances topic, READ on the workers' group; WRITE only
 *       when workers republish released instances ({@code worker.republish-released});
 *   <li>retry: WRITE and DESCRIBE on the instances topic, READ, DESCRIBE and DESCRIBE_CONFIGS on
 *       the config topic (read without a group);
 *   <li>operator (schedctl, the control plane's config writes): WRITE, READ and DESCRIBE on the
 *       config topic, and nothing on the instances topic.
 * </ul>
 *
 * Idempotent producers need no cluster permission beyond WRITE on their topic (Kafka 3.0+).
 */
public final class CarillonAcls {
  /** The consumer group of the trigger's event consumer (TriggerService.EVENTS_GROUP). */
  public static final String TRIGGER_EVENTS_GROUP = "carillon-trigger-events";

  /** The workers' consumer group unless {@code worker.group} says otherwise. */
  public static final String WORKER_GROUP = "carillon-workers";

  private static final Pattern PRINCIPAL = Pattern.compile("User:[^\\s;,]+");

  /**
   * The principals Carillon's clients authenticate as, e.g. {@code User:carillon-trigger}.
   *
   * @param workersWrite whether workers may write the instances topic (they republish released
   *     instances at shutdown)
   */
  public record Principals(
      String trigger, String worker, String retry, String operator, boolean workersWrite) {
    public Principals {
      check("kafka.acl.trigger", trigger);
      check("kafka.acl.worker", worker);
      check("kafka.acl.retry", retry);
      check("kafka.acl.operator", operator);
    }

    private static void check(String key, String principal) {
      if (principal == null || !PRINCIPAL.matcher(principal).matches()) {
        throw new IllegalArgumentException(
            key + " must be a principal like User:carillon-worker, was '" + principal + "'");
      }
    }
  }

  private CarillonAcls() {}

  /**
   * The bindings for {@code principals} on the given topics and the workers' group.
   *
   * @param workerGroup the workers' consumer group ({@code worker.group})
   */
  public static List<AclBinding> bindings(
      Principals principals, String instancesTopic, String configTopic, String workerGroup) {
    return bindings(principals, List.of(instancesTopic), configTopic, workerGroup);
  }

  /**
   * The bindings for {@code principals} on the given topics and the workers' group, with the
   * instances topic's rights on each of {@code instancesTopics} (the default queue's and each other
   * queue's, {@link Topics#instances}): one literal binding per topic, so that a principal gets
   * nothing on a topic the deploy step did not make.
   *
   * @param workerGroup the workers' consumer group ({@code worker.group})
   */
  public static List<AclBinding> bindings(
      Principals principals, List<String> instancesTopics, String configTopic, String workerGroup) {
    Objects.requireNonNull(principals, "principals");
    List<AclBinding> out = new ArrayList<>();
    List<ResourcePattern> instances =
        instancesTopics.stream().distinct().map(CarillonAcls::topic).toList();
    ResourcePattern config = topic(configTopic);

    instances.forEach(
        t -> allow(out, principals.trigger(), t, AclOperation.WRITE, AclOperation.DESCRIBE));
    allow(out, principals.trigger(), group(TRIGGER_EVENTS_GROUP), AclOperation.READ);

    for (ResourcePattern t : instances) {
      allow(out, principals.worker(), t, AclOperation.READ, AclOperation.DESCRIBE);
      if (principals.workersWrite()) {
        allow(out, principals.worker(), t, AclOperation.WRITE);
      }
    }
    allow(out, principals.worker(), group(workerGroup), AclOperation.READ);

    instances.forEach(
        t -> allow(out, principals.retry(), t, AclOperation.WRITE, AclOperation.DESCRIBE));
    allow(
        out,
        principals.retry(),
        config,
        AclOperation.READ,
        AclOperation.DESCRIBE,
        AclOperation.DESCRIBE_CONFIGS);

    allow(
        out,
        principals.operator(),
        config,
        AclOperation.WRITE,
        AclOperation.READ,
        AclOperation.DESCRIBE);
    return List.copyOf(out);
  }

  private static ResourcePattern topic(String name) {
    return new ResourcePattern(ResourceType.TOPIC, name, PatternType.LITERAL);
  }

  private static ResourcePattern group(String name) {
    return new ResourcePattern(ResourceType.GROUP, name, PatternType.LITERAL);
  }

  private static void allow(
      List<AclBinding> out, String principal, ResourcePattern on, AclOperation... operations) {
    for (AclOperation op : operations) {
      out.add(
          new AclBinding(on, new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)));
    }
  }
}
