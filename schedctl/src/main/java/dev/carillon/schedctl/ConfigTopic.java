package dev.carillon.schedctl;

import dev.carillon.kafka.KafkaSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads and writes the compacted configuration topic. Every call is bounded by the timeout, and a
 * Kafka that does not answer becomes a {@link CliException} (exit 1) naming Kafka and its bootstrap
 * servers.
 *
 * <p>The topic must exist: the services create it compacted at startup. Writing to a missing topic
 * would let the broker auto-create it with the default {@code delete} cleanup policy, and the
 * configuration would then expire with the retention instead of living until overwritten.
 */
final class ConfigTopic {
  /**
   * The latest record of one key.
   *
   * @param value the JSON text, or null for a tombstone (the key was unset)
   */
  record Entry(String key, String value, int partition, long offset, Instant timestamp) {}

  private final KafkaSettings settings;
  private final String topic;
  private final Duration timeout;

  ConfigTopic(KafkaSettings settings, String topic, Duration timeout) {
    this.settings = settings;
    this.topic = topic;
    this.timeout = timeout;
  }

  /**
   * The topic's partitions.
   *
   * @throws CliException (exit 1) when Kafka does not answer or the topic does not exist
   */
  List<TopicPartition> partitions() {
    Map<String, Object> props = settings.adminProps();
    int ms = (int) timeout.toMillis();
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
    props.put(CommonClientConfigs.CLIENT_ID_CONFIG, "schedctl-admin");
    try (Admin admin = Admin.create(props)) {
      TopicDescription d =
          admin
              .describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs(ms))
              .allTopicNames()
              .get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS)
              .get(topic);
      return d.partitions().stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        throw CliException.unreachable(
            "topic "
                + topic
                + " does not exist on Kafka at "
                + settings.bootstrap()
                + "; the Carillon services create it (compacted) when they start",
            e);
      }
      throw unreachable(e.getCause());
    } catch (TimeoutException | KafkaException e) {
      throw unreachable(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unreachable(e);
    }
  }

  /**
   * Sends {@code value} (null: a tombstone) for {@code key} and waits for the acknowledgement.
   *
   * @return the record's offset
   */
  long put(String key, String value) {
    partitions();
    Map<String, Object> props = settings.producerProps();
    int ms = (int) timeout.toMillis();
    // producerProps() brings String keys, byte[] values, idempotence and acks=all.
    props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, ms);
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, ms);
    props.put(CommonClientConfigs.CLIENT_ID_CONFIG, "schedctl-config");
    byte[] bytes = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
      RecordMetadata m =
          producer
              .send(new ProducerRecord<>(topic, key, bytes))
              .get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
      return m.offset();
    } catch (ExecutionException e) {
      throw unreachable(e.getCause());
    } catch (TimeoutException | KafkaException e) {
      throw unreachable(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw unreachable(e);
    }
  }

  /**
   * Reads the topic from the beginning to the end offsets it had when the call began and returns
   * the latest record per key, tombstones included, in order of first appearance.
   */
  Map<String, Entry> readAll() {
    List<TopicPartition> partitions = partitions();
    Map<String, Object> props = settings.adminProps();
    int ms = (int) timeout.toMillis();
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
    props.put(CommonClientConfigs.CLIENT_ID_CONFIG, "schedctl-config-reader");
    Map<String, Entry> latest = new LinkedHashMap<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
      // No group: assign + seek reads everything without joining or committing anything.
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!caughtUp(consumer, end)) {
        if (System.nanoTime() - deadline > 0) {
          throw CliException.unreachable(
              "Kafka at "
                  + settings.bootstrap()
                  + " did not deliver "
                  + topic
                  + " up to its end offsets "
                  + end.values()
                  + " within "
                  + timeout,
              null);
        }
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.key() == null) {
            continue;
          }
          String value = r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8);
          latest.remove(r.key());
          latest.put(
              r.key(),
              new Entry(
                  r.key(), value, r.partition(), r.offset(), Instant.ofEpochMilli(r.timestamp())));
        }
      }
    } catch (KafkaException e) {
      throw unreachable(e);
    }
    return latest;
  }

  private static boolean caughtUp(
      KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private CliException unreachable(Throwable cause) {
    return CliException.unreachable(
        "cannot reach Kafka at "
            + settings.bootstrap()
            + ": "
            + (cause instanceof TimeoutException
                ? "no answer within " + timeout
                : Session.rootMessage(cause)),
        cause);
  }

  /** The keys in {@code entries} whose latest record is a value, not a tombstone. */
  static List<Entry> live(Map<String, Entry> entries) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : entries.values()) {
      if (e.value() != null) {
        out.add(e);
      }
    }
    return out;
  }
}
