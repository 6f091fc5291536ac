package dev.carillon.schedctl;

import dev.carillon.kafka.CachedQueueRouter;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.Topics;
import dev.carillon.model.instance.Instance;
import java.time.Duration;
import java.util.List;

/**
 * Publishes instances an operator made PENDING, and stamps {@code dispatched_at} for those Kafka
 * acknowledged. One that is not acknowledged stays PENDING and undispatched, so the retry service's
 * stranded-PENDING scan publishes it later: the database, not the message, is the truth.
 */
final class CommandPublisher implements AutoCloseable {
  private final Session session;
  private final KafkaSettings settings;
  private InstancePublisher publisher;

  /** Reads the Kafka settings now (a configuration error must stop a command before it writes). */
  CommandPublisher(Session session) {
    this.session = session;
    this.settings = session.kafka();
  }

  String bootstrap() {
    return settings.bootstrap();
  }

  /**
   * Publishes {@code instances}; returns the ids Kafka acknowledged (each now stamped dispatched).
   */
  List<Long> publish(List<Instance> instances) {
    if (instances.isEmpty()) {
      return List.of();
    }
    if (publisher == null) {
      // The publisher's minimum acknowledgement timeout is one second.
      Duration ack =
          session.timeout().compareTo(Duration.ofSeconds(1)) < 0
              ? Duration.ofSeconds(1)
              : session.timeout();
      publisher =
          new InstancePublisher(
              settings,
              Topics.INSTANCES,
              ack,
              new CachedQueueRouter(
                  session.db().tasks()::queues, CachedQueueRouter.DEFAULT_TTL, System::nanoTime));
    }
    List<InstanceMessage> messages =
        instances.stream()
            .map(
                i -> InstanceMessage.of(i.id(), i.taskId(), i.windowKey(), session.clock.instant()))
            .toList();
    List<Long> acked = publisher.publish(messages);
    session.db().windows().markDispatched(acked);
    return acked;
  }

  @Override
  public void close() {
    if (publisher != null) {
      publisher.close();
    }
  }
}
