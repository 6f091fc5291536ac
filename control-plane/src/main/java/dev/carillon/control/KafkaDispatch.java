package dev.carillon.control;

import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.model.instance.Instance;
import dev.carillon.store.WindowStore;
import java.time.Clock;
import java.util.List;

/**
 * {@link InstanceDispatch} through an {@link InstancePublisher} (shared with the trigger's own
 * dispatcher; it is thread-safe), stamping {@code dispatched_at} on what Kafka acknowledged.
 */
public final class KafkaDispatch implements InstanceDispatch {
  private final InstancePublisher publisher;
  private final WindowStore windows;
  private final Clock clock;

  public KafkaDispatch(InstancePublisher publisher, WindowStore windows, Clock clock) {
    this.publisher = publisher;
    this.windows = windows;
    this.clock = clock;
  }

  @Override
  public List<Long> publish(List<Instance> instances) {
    if (instances.isEmpty()) {
      return List.of();
    }
    List<Long> acked =
        publisher.publish(
            instances.stream()
                .map(i -> InstanceMessage.of(i.id(), i.taskId(), i.windowKey(), clock.instant()))
                .toList());
    windows.markDispatched(acked);
    return acked;
  }
}
