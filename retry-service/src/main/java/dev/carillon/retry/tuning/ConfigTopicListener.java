package dev.carillon.retry.tuning;

import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.tuning.ConfigSigner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the compacted config topic from the beginning on its own thread and hands every record to
 * {@link Tuning}, so changes apply live, without a restart.
 *
 * <p>No consumer group and no committed offsets: partitions are {@code assign}ed and read from the
 * beginning, so every retry service (leader or standby) holds the whole compacted state.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once (idempotent). Thread-safe.
 */
public final class ConfigTopicListener implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ConfigTopicListener.class);
  private static final Duration POLL = Duration.ofMillis(200);
  private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaSettings settings;
  private final String topic;
  private final Tuning tuning;
  private final CountDownLatch caughtUp = new CountDownLatch(1);
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final KafkaConsumer<String, byte[]> consumer;
  private final Thread thread;

  public ConfigTopicListener(KafkaSettings settings, String topic, Tuning tuning) {
    this.settings = settings;
    this.topic = topic;
    this.tuning = tuning;
    Map<String, Object> props = new HashMap<>(settings.adminProps());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    this.consumer = new KafkaConsumer<>(props);
    this.thread = new Thread(this::run, "retry-config");
    this.thread.setDaemon(true);
  }

  /** Starts reading on the listener's own thread. */
  public void start() {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("config listener for " + topic + " already started");
    }
    thread.start();
  }

  /**
   * Waits until the records that existed at start have been applied.
   *
   * @return false if that did not happen within {@code timeout}
   */
  public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
    return caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Whether the records that existed at start have been applied. */
  public boolean isCaughtUp() {
    return caughtUp.getCount() == 0;
  }

  private void run() {
    try {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, METADATA_TIMEOUT);
      List<TopicPartition> partitions =
          infos.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, METADATA_TIMEOUT);
      log.info("Reading config topic {} from the beginning ({} records at most)", topic, end);
      while (!closed.get()) {
        try {
          for (ConsumerRecord<String, byte[]> r : consumer.poll(POLL)) {
            String value = r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8);
            Header signature = r.headers().lastHeader(ConfigSigner.HEADER);
            tuning.apply(
                r.key(),
                value,
                signature == null || signature.value() == null
                    ? null
                    : new String(signature.value(), StandardCharsets.UTF_8),
                r.offset());
          }
        } catch (WakeupException e) {
          break;
        } catch (KafkaException e) {
          // The client reconnects by itself; keep the previous values and go on polling.
          log.warn("Reading config topic {} failed, retrying: {}", topic, e.toString());
        }
        if (caughtUp.getCount() > 0 && reached(end)) {
          log.info("Config topic {} read up to its end at start", topic);
          caughtUp.countDown();
        }
      }
    } catch (WakeupException e) {
      // close() during startup
    } catch (RuntimeException e) {
      log.error("Config listener for {} stopped; overrides are no longer applied live", topic, e);
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  private boolean reached(Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** Stops reading and waits for the thread; idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    consumer.wakeup();
    if (started.get()) {
      try {
        thread.join(Duration.ofSeconds(10).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  /** The settings this listener reads with (for logs). */
  @Override
  public String toString() {
    return "ConfigTopicListener[" + topic + " on " + settings.describe() + "]";
  }
}
