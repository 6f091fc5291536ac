package dev.carillon.kafka;

import dev.carillon.metrics.ServiceMeters;
import dev.carillon.trace.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes {@link InstanceMessage}s to {@link Topics#INSTANCES} and reports which ones Kafka
 * acknowledged.
 *
 * <p>The producer is idempotent with {@code acks=all}, keyed by task id, and lingers {@link
 * #LINGER} so that one trigger tick's messages travel in few batches. {@link #publish(List)} never
 * blocks longer than about the acknowledgement timeout, even when Kafka is down: messages that are
 * not acknowledged in time are simply not in the result. The caller stamps {@code dispatched_at}
 * only for the returned ids and leaves the rest to the retry service's stranded-PENDING scan; a
 * message that Kafka accepts after the deadline is then delivered twice, which the workers' claim
 * (a compare-and-set) makes harmless.
 *
 * <p>Each message gets a span (its name given by the publisher's owner: {@code publish} for the
 * trigger, {@code republish} for the retry service and the worker's releases) in its instance's
 * trace, from send to acknowledgement, and, while tracing is on, the span's W3C {@code traceparent}
 * as a record header, which the worker's spans continue.
 *
 * <p>Thread-safe. {@link #close()} waits up to the acknowledgement timeout for messages in flight.
 */
public final class InstancePublisher implements AutoCloseable {
  /**
   * How long the producer waits to fill a batch. Short: {@link #publish} hands over a whole chunk
   * of a tick at once, so batches fill by size, and the last one's wait is on every fire's lag.
   */
  public static final Duration LINGER = Duration.ofMillis(1);

  /** Acknowledgement timeout unless told otherwise. */
  public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(InstancePublisher.class);

  private final Producer<String, byte[]> producer;
  private final String topic;
  private final Duration ackTimeout;
  private final Tracing tracing;
  private final String spanName;

  /**
   * A publisher to {@link Topics#INSTANCES} with the {@linkplain #DEFAULT_ACK_TIMEOUT default
   * timeout}.
   */
  public InstancePublisher(KafkaSettings settings) {
    this(settings, Topics.INSTANCES, DEFAULT_ACK_TIMEOUT);
  }

  /**
   * @param settings how to reach Kafka
   * @param topic the topic to publish to ({@link Topics#INSTANCES} except in tests)
   * @param ackTimeout how long one {@link #publish} call waits for acknowledgements, at least one
   *     second; also bounds how long a record may wait in the producer before it is given up
   */
  public InstancePublisher(KafkaSettings settings, String topic, Duration ackTimeout) {
    this(settings, topic, ackTimeout, Tracing.off(), "publish");
  }

  /**
   * As {@link #InstancePublisher(KafkaSettings, String, Duration)}, with a span named {@code
   * spanName} per message in {@code tracing}.
   */
  public InstancePublisher(
      KafkaSettings settings, String topic, Duration ackTimeout, Tracing tracing, String spanName) {
    this.tracing = java.util.Objects.requireNonNull(tracing, "tracing");
    this.spanName = java.util.Objects.requireNonNull(spanName, "spanName");
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("topic must not be blank, was '" + topic + "'");
    }
    if (ackTimeout == null || ackTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("ackTimeout must be at least PT1S, was " + ackTimeout);
    }
    this.topic = topic;
    this.ackTimeout = ackTimeout;
    this.producer = new KafkaProducer<>(producerProps(settings, ackTimeout));
    log.info(
        "Publishing instances to {} on {} (ack timeout {})",
        topic,
        settings.describe(),
        ackTimeout);
  }

  /** Exports the producer's own metrics ({@code kafka_producer_*}) through {@code meters}. */
  public void bindMetrics(ServiceMeters meters) {
    meters.bindKafka(producer);
  }

  static Map<String, Object> producerProps(KafkaSettings settings, Duration ackTimeout) {
    Map<String, Object> p = settings.producerProps();
    int timeoutMs = (int) ackTimeout.toMillis();
    int lingerMs = (int) LINGER.toMillis();
    p.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
    // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms.
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs - lingerMs);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMs);
    // send() blocks while it has no metadata for the topic (e.g. Kafka is down at startup).
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    return p;
  }

  /**
   * Sends every message and waits for Kafka's acknowledgements, at most about the acknowledgement
   * timeout in total.
   *
   * @param messages the messages to send, in order; records of one task keep their order
   * @return the instance ids Kafka acknowledged, in the order given; possibly empty, never null
   */
  public List<Long> publish(List<InstanceMessage> messages) {
    long deadline = System.nanoTime() + ackTimeout.toNanos();
    List<Future<RecordMetadata>> sent = new ArrayList<>(messages.size());
    List<Span> spans = new ArrayList<>(messages.size());
    int notSent = 0;
    for (InstanceMessage m : messages) {
      if (System.nanoTime() - deadline >= 0) {
        // The first send spent the whole budget waiting for metadata; do not wait again per
        // message.
        notSent = messages.size() - sent.size();
        break;
      }
      Span span = startSpan(m);
      spans.add(span);
      ProducerRecord<String, byte[]> record =
          new ProducerRecord<>(topic, m.taskId(), InstanceMessageCodec.encode(m));
      if (tracing.enabled()) {
        Tracing.traceparent(span.getSpanContext())
            .ifPresent(
                tp ->
                    record.headers().add(Tracing.TRACEPARENT, tp.getBytes(StandardCharsets.UTF_8)));
      }
      try {
        sent.add(producer.send(record));
      } catch (KafkaException e) {
        log.warn(
            "Could not send instance {} of task {}: {}", m.instanceId(), m.taskId(), e.toString());
        end(span, e.toString());
        sent.add(null);
      }
    }
    List<Long> acknowledged = new ArrayList<>(sent.size());
    String firstFailure = null;
    for (int i = 0; i < sent.size(); i++) {
      Future<RecordMetadata> f = sent.get(i);
      if (f == null) {
        continue;
      }
      try {
        long left = Math.max(0, deadline - System.nanoTime());
        f.get(left, TimeUnit.NANOSECONDS);
        acknowledged.add(messages.get(i).instanceId());
        end(spans.get(i), null);
      } catch (ExecutionException e) {
        if (firstFailure == null) {
          firstFailure = e.getCause().toString();
        }
        end(spans.get(i), e.getCause().toString());
      } catch (TimeoutException e) {
        if (firstFailure == null) {
          firstFailure = "no acknowledgement within " + ackTimeout;
        }
        end(spans.get(i), "no acknowledgement within " + ackTimeout);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        for (int j = i; j < spans.size(); j++) {
          end(spans.get(j), "interrupted");
        }
        break;
      }
    }
    if (acknowledged.size() < messages.size()) {
      log.warn(
          "Kafka acknowledged {} of {} instance messages on {} ({} not sent); first failure: {}",
          acknowledged.size(),
          messages.size(),
          topic,
          notSent,
          firstFailure);
    }
    return acknowledged;
  }

  private Span startSpan(InstanceMessage m) {
    return tracing
        .tracer()
        .spanBuilder(spanName)
        .setParent(tracing.instanceParent(m.instanceId()))
        .setSpanKind(SpanKind.PRODUCER)
        .setAttribute(Tracing.INSTANCE, m.instanceId())
        .setAttribute(Tracing.TASK, m.taskId())
        .setAttribute(Tracing.WINDOW, m.windowKey())
        .setAttribute("messaging.system", "kafka")
        .setAttribute("messaging.destination.name", topic)
        .startSpan();
  }

  /** Ends a message's span; {@code failure} null means acknowledged. */
  private static void end(Span span, String failure) {
    if (failure != null) {
      span.setStatus(StatusCode.ERROR, failure);
    }
    span.end();
  }

  /** Flushes and closes the producer, waiting up to the acknowledgement timeout. */
  @Override
  public void close() {
    producer.close(ackTimeout);
  }
}
