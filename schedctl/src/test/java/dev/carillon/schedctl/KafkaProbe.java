package dev.carillon.schedctl;

import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads every instance message published so far, to check what a command sent. */
final class KafkaProbe {
  private KafkaProbe() {}

  static List<InstanceMessage> instanceMessages() {
    Map<String, Object> props = KafkaSettings.of(DevStack.shared().kafkaBootstrap()).adminProps();
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    List<InstanceMessage> out = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(props)) {
      List<TopicPartition> parts =
          c.partitionsFor(Topics.INSTANCES, Duration.ofSeconds(10)).stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(10));
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (parts.stream().anyMatch(p -> c.position(p) < end.get(p))
          && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          out.add(InstanceMessageCodec.decode(r.value()));
        }
      }
    }
    return out;
  }
}
