package dev.carillon.schedctl;

import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.Topics;
import dev.carillon.model.tuning.ConfigSigner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
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

  /** A config record's value (null: tombstone) and signature header (null: unsigned). */
  record ConfigRecord(String value, String signature) {}

  /** The latest config record of {@code key}. */
  static ConfigRecord lastConfigRecord(String key) {
    Map<String, Object> props = KafkaSettings.of(DevStack.shared().kafkaBootstrap()).adminProps();
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    ConfigRecord last = null;
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(props)) {
      List<TopicPartition> parts =
          c.partitionsFor(Topics.CONFIG, Duration.ofSeconds(10)).stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(10));
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (parts.stream().anyMatch(p -> c.position(p) < end.get(p))
          && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          if (key.equals(r.key())) {
            Header h = r.headers().lastHeader(ConfigSigner.HEADER);
            last =
                new ConfigRecord(
                    r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8),
                    h == null ? null : new String(h.value(), StandardCharsets.UTF_8));
          }
        }
      }
    }
    if (last == null) {
      throw new AssertionError("no config record of " + key + " within 20 s");
    }
    return last;
  }
}
