package dev.carillon.retry.scan;

import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.model.instance.Instance;
import dev.carillon.retry.RetryMetrics;
import java.time.Clock;
import java.util.List;

/** Publishes instances to the instances topic and counts what Kafka acknowledged. */
public final class Republisher {
  private final InstancePublisher publisher;
  private final Clock clock;
  private final RetryMetrics metrics;

  public Republisher(InstancePublisher publisher, Clock clock, RetryMetrics metrics) {
    this.publisher = publisher;
    this.clock = clock;
    this.metrics = metrics;
  }

  /**
   * Publishes one message per instance.
   *
   * @return the ids Kafka acknowledged
   */
  public List<Long> publish(List<Instance> instances) {
    if (instances.isEmpty()) {
      return List.of();
    }
    var at = clock.instant();
    List<Long> acked =
        publisher.publish(
            instances.stream()
                .map(i -> InstanceMessage.of(i.id(), i.taskId(), i.windowKey(), at))
                .toList());
    metrics.republished(acked.size());
    return acked;
  }
}
