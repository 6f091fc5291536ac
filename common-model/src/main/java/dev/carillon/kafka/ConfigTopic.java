package dev.carillon.kafka;

import dev.carillon.model.tuning.ConfigRecord;
import dev.carillon.model.tuning.ConfigSigner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads and writes the compacted configuration topic for operators ({@code schedctl config}, the
 * API's {@code /config}); the retry service follows it with its own listener. Every call is bounded
 * by the timeout, and a Kafka that does not answer becomes a {@link KafkaUnavailableException}
 * naming Kafka and its bootstrap servers. Each call opens and closes its own client: operators'
 * calls are rare, and a client kept open would hold connections and threads for nothing.
 *
 * <p>The topic must exist: the create-topics step makes it compacted. Writing to a missing topic
 * would let a broker that creates topics on first use make it with the default {@code delete}
 * cleanup policy, and the configuration would then expire with the retention instead of living
 * until overwritten.
 *
 * <p>With a {@link ConfigSigner}, every record written carries its signature in the {@link
 * ConfigSigner#HEADER} header (over key and value; the actor header is not signed), and the records
 * read carry theirs, so that a replay can refuse what the retry service refuses.
 */
public final class ConfigTopic {
  private final KafkaSettings settings;
  private final String topic;
  private final Duration timeout;
  private final Optional<ConfigSigner> signer;

  /** A config topic whose records are written unsigned. */
  public ConfigTopic(KafkaSettings settings, String topic, Duration timeout) {
    this(settings, topic, timeout, Optional.empty());
  }

  /**
   * @param topic the config topic ({@link Topics#CONFIG} except in tests)
   * @param timeout the longest any call waits for Kafka
   * @param signer signs every record written ({@code config.signing-secret}), or empty
   */
  public ConfigTopic(
      KafkaSettings settings, String topic, Duration timeout, Optional<ConfigSigner> signer) {
    this.settings = settings;
    this.topic = topic;
    this.timeout = timeout;
    this.signer = Objects.requireNonNull(signer, "signer");
  }

  /** The signer of the records written, and the check of those read; empty when signing is off. */
  public Optional<ConfigSigner> signer() {
    return signer;
  }

  /**
   * The topic's partitions.
   *
   * @throws KafkaUnavailableException when Kafka does not answer or the topic does not exist
   */
  public List<TopicPartition> partitions() {
    Map<String, Object> props = settings.adminProps();
    int ms = (int) timeout.toMillis();
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
    props.put(CommonClientConfigs.CLIENT_ID_CONFIG, "carillon-config-admin");
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
        throw new KafkaUnavailableException(
            "topic "
                + topic
                + " does not exist on Kafka at "
                + settings.bootstrap()
                + "; create it with the create-topics step (compacted, see docs/operations.md)",
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

  /** The record header naming who wrote a record. */
  public static final String ACTOR_HEADER = "carillon-actor";

  /**
   * Sends {@code value} (null: a tombstone) for {@code key}, naming {@code actor} in the {@value
   * #ACTOR_HEADER} header, and waits for the acknowledgement.
   *
   * @return the record's offset
   * @throws KafkaUnavailableException when Kafka does not acknowledge it within the timeout
   */
  public long put(String key, String value, String actor) {
    partitions();
    Map<String, Object> props = settings.producerProps();
    int ms = (int) timeout.toMillis();
    // producerProps() brings String keys, byte[] values, idempotence and acks=all.
    props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, ms);
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, ms);
    props.put(CommonClientConfigs.CLIENT_ID_CONFIG, "carillon-config-writer");
    byte[] bytes = value == null ? null : value.getBytes(StandardCharsets.UTF_8);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
      RecordMetadata m =
          producer
              .send(new ProducerRecord<>(topic, null, key, bytes, headers(key, value, actor)))
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

  private List<Header> headers(String key, String value, String actor) {
    List<Header> headers = new ArrayList<>();
    headers.add(new RecordHeader(ACTOR_HEADER, actor.getBytes(StandardCharsets.UTF_8)));
    signer.ifPresent(
        s ->
            headers.add(
                new RecordHeader(
                    ConfigSigner.HEADER, s.sign(key, value).getBytes(StandardCharsets.UTF_8))));
    return headers;
  }

  /**
   * Reads the topic from the beginning to the end offsets it had when the call began and returns
   * every record, tombstones included, by partition and offset.
   *
   * @throws KafkaUnavailableException when Kafka does not deliver them within the timeout
   */
  public List<ConfigRecord> readAll() {
    List<TopicPartition> partitions = partitions();
    Map<String, Object> props = settings.adminProps();
    int ms = (int) timeout.toMillis();
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
    props.put(CommonClientConfigs.CLIENT_ID_CONFIG, "carillon-config-reader");
    List<ConfigRecord> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
      // No group: assign + seek reads everything without joining or committing anything.
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!caughtUp(consumer, end)) {
        if (System.nanoTime() - deadline > 0) {
          throw new KafkaUnavailableException(
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
          if (r.offset() >= end.getOrDefault(new TopicPartition(r.topic(), r.partition()), 0L)) {
            continue; // written after the call began; the next read sees it
          }
          String value = r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8);
          records.add(
              new ConfigRecord(
                  r.key(),
                  value,
                  r.partition(),
                  r.offset(),
                  Instant.ofEpochMilli(r.timestamp()),
                  text(r.headers().lastHeader(ACTOR_HEADER)),
                  text(r.headers().lastHeader(ConfigSigner.HEADER))));
        }
      }
    } catch (KafkaException e) {
      throw unreachable(e);
    }
    records.sort(
        Comparator.comparingInt(ConfigRecord::partition).thenComparingLong(ConfigRecord::offset));
    return records;
  }

  /**
   * The latest record of each key, tombstones included, in order of first appearance: what a
   * compacted topic keeps in the end.
   */
  public static Map<String, ConfigRecord> latest(List<ConfigRecord> records) {
    Map<String, ConfigRecord> latest = new LinkedHashMap<>();
    for (ConfigRecord r : records) {
      if (r.key() != null) {
        latest.remove(r.key());
        latest.put(r.key(), r);
      }
    }
    return latest;
  }

  private static String text(Header h) {
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
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

  private KafkaUnavailableException unreachable(Throwable cause) {
    return new KafkaUnavailableException(
        "cannot reach Kafka at "
            + settings.bootstrap()
            + ": "
            + (cause instanceof TimeoutException
                ? "no answer within " + timeout
                : rootMessage(cause)),
        cause);
  }

  /** The message of the innermost cause: "Connection refused" rather than a wrapper's prose. */
  private static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage();
    if (m == null || m.isBlank()) {
      m = t.getMessage();
    }
    return m == null || m.isBlank() ? root.getClass().getSimpleName() : m.strip();
  }
}
