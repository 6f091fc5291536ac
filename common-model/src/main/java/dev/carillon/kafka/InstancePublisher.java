package dev.carillon.kafka;

import dev.carillon.metrics.ServiceMeters;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.trace.Tracing;
import io.micrometer.core.instrument.FunctionCounter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes {@link InstanceMessage}s to the instances topic of each instance's queue ({@link
 * Topics#instances}, the queue found by a {@link QueueRouter}) and reports which ones Kafka
 * acknowledged.
 *
 * <p>The publisher creates no topic: the create-topics deploy step makes each queue's topic ({@code
 * kafka.queues}), and under Kafka ACLs the services' principals may not create topics. The default
 * queue's topic is checked by the service at start; the topic of any other queue is checked (with a
 * describe call, which never creates a topic, where a producer's metadata request would let a
 * broker with {@code auto.create.topics.enable} create it with the broker's defaults) the first
 * time a message goes to it, and again at each later call while it is missing. A message whose
 * topic is missing, or not visible to this principal, is not sent and not in the result, so its
 * instance stays PENDING and undispatched and the sweeps (the trigger's undispatched sweep, the
 * retry service's stranded scan) publish it again once the topic exists: nothing is lost. The
 * publisher logs this once per topic, with the reason and what to run, and counts the messages held
 * back ({@code carillon.publish.topic.unusable}, by reason).
 *
 * <p>Each record goes to a partition picked at random, keyed by its instance id only for tools that
 * show keys. Nothing relies on the order of instance ids (the claim's compare-and-set and the
 * trigger's overlap rule decide what runs), and keying by task id tied all of a task's windows to
 * one partition, so to one worker: a worker stuck with full slots held a healthy task's windows
 * unclaimed. A random partition also sends an instance published again (by the stranded scan) to a
 * partition other than the one whose worker could not run it, most of the time.
 *
 * <p>The producer is idempotent with {@code acks=all} and lingers {@link #LINGER} so that one
 * trigger tick's messages travel in few batches. {@link #publish(List)} never blocks longer than
 * about the acknowledgement timeout, even when Kafka is down: messages that are not acknowledged in
 * time are simply not in the result. The caller stamps {@code dispatched_at} only for the returned
 * ids and leaves the rest to the retry service's stranded-PENDING scan; a message that Kafka
 * accepts after the deadline is then delivered twice, which the workers' claim (a compare-and-set)
 * makes harmless.
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

  /** Messages held back because their queue's topic is missing or not visible, by reason. */
  public static final String UNUSABLE_TOPIC_METER = "carillon.publish.topic.unusable";

  private static final Logger log = LoggerFactory.getLogger(InstancePublisher.class);

  private final Producer<String, byte[]> producer;
  private final KafkaSettings settings;
  private final String topic;
  private final Duration ackTimeout;
  private final QueueRouter router;
  private final Set<String> checkedTopics = ConcurrentHashMap.newKeySet();
  private final Set<String> reportedUnusable = ConcurrentHashMap.newKeySet();
  private final AtomicLong heldBackMissing = new AtomicLong();
  private final AtomicLong heldBackNotAuthorized = new AtomicLong();
  private Admin admin;
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
   * A publisher that sends every instance to {@code topic} (the default queue's topic).
   *
   * @param settings how to reach Kafka
   * @param topic the topic to publish to ({@link Topics#INSTANCES} except in tests)
   * @param ackTimeout how long one {@link #publish} call waits for acknowledgements, at least one
   *     second; also bounds how long a record may wait in the producer before it is given up
   */
  public InstancePublisher(KafkaSettings settings, String topic, Duration ackTimeout) {
    this(settings, topic, ackTimeout, QueueRouter.DEFAULT_ONLY);
  }

  /**
   * @param settings how to reach Kafka
   * @param topic the default queue's topic ({@link Topics#INSTANCES} except in tests); the other
   *     queues' topics are named after it ({@link Topics#instances})
   * @param ackTimeout how long one {@link #publish} call waits for acknowledgements, at least one
   *     second; also bounds how long a record may wait in the producer before it is given up
   * @param router the queue of each task
   */
  public InstancePublisher(
      KafkaSettings settings, String topic, Duration ackTimeout, QueueRouter router) {
    this(settings, topic, ackTimeout, router, Tracing.off(), "publish");
  }

  /**
   * As {@link #InstancePublisher(KafkaSettings, String, Duration, QueueRouter)}, with a span named
   * {@code spanName} per message in {@code tracing}.
   */
  public InstancePublisher(
      KafkaSettings settings,
      String topic,
      Duration ackTimeout,
      QueueRouter router,
      Tracing tracing,
      String spanName) {
    this.tracing = Objects.requireNonNull(tracing, "tracing");
    this.spanName = Objects.requireNonNull(spanName, "spanName");
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("topic must not be blank, was '" + topic + "'");
    }
    if (ackTimeout == null || ackTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("ackTimeout must be at least PT1S, was " + ackTimeout);
    }
    this.settings = settings;
    this.topic = topic;
    this.ackTimeout = ackTimeout;
    this.router = Objects.requireNonNull(router, "router");
    // The default queue's topic is checked by the service at start (TopicAdmin.require).
    checkedTopics.add(topic);
    this.producer = new KafkaProducer<>(producerProps(settings, ackTimeout));
    log.info(
        "Publishing instances to {} on {} (ack timeout {})",
        topic,
        settings.describe(),
        ackTimeout);
  }

  /**
   * Exports the producer's own metrics ({@code kafka_producer_*}) through {@code meters}, and
   * {@code carillon.publish.topic.unusable}: messages not sent because their queue's topic is
   * missing ({@code reason=missing}) or not visible to this principal ({@code
   * reason=not_authorized}).
   */
  public void bindMetrics(ServiceMeters meters) {
    meters.bindKafka(producer);
    FunctionCounter.builder(UNUSABLE_TOPIC_METER, heldBackMissing, AtomicLong::get)
        .description("Instance messages not sent because their queue's topic is unusable")
        .tag("reason", "missing")
        .register(meters.meters());
    FunctionCounter.builder(UNUSABLE_TOPIC_METER, heldBackNotAuthorized, AtomicLong::get)
        .description("Instance messages not sent because their queue's topic is unusable")
        .tag("reason", "not_authorized")
        .register(meters.meters());
  }

  /**
   * How many messages were not sent because their queue's topic was missing: left PENDING and
   * undispatched for the sweeps.
   */
  public long heldBackForMissingTopic() {
    return heldBackMissing.get();
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
   * @param messages the messages to send
   * @return the instance ids Kafka acknowledged, in the order given; possibly empty, never null
   */
  public List<Long> publish(List<InstanceMessage> messages) {
    long deadline = System.nanoTime() + ackTimeout.toNanos();
    if (messages.isEmpty()) {
      return List.of();
    }
    Map<String, String> queues;
    try {
      Set<String> tasks = new HashSet<>();
      messages.forEach(m -> tasks.add(m.taskId()));
      queues = router.queuesOf(tasks);
    } catch (RuntimeException e) {
      log.warn(
          "Could not find the queues of {} instance message(s); none sent: {}",
          messages.size(),
          e.toString());
      return List.of();
    }
    List<Future<RecordMetadata>> sent = new ArrayList<>(messages.size());
    List<Span> spans = new ArrayList<>(messages.size());
    Map<String, Unusable> unusable = new HashMap<>();
    int notSent = 0;
    int heldBack = 0;
    String firstFailure = null;
    for (InstanceMessage m : messages) {
      if (System.nanoTime() - deadline >= 0) {
        // The first send spent the whole budget waiting for metadata; do not wait again per
        // message.
        notSent = messages.size() - sent.size();
        break;
      }
      String to =
          Topics.instances(topic, queues.getOrDefault(m.taskId(), TaskDefinition.DEFAULT_QUEUE));
      Span span = startSpan(m, to);
      spans.add(span);
      Unusable why = check(to, deadline, unusable);
      if (why != null) {
        // Not sent: the instance stays undispatched and a sweep publishes it once the topic exists.
        end(span, why.reason());
        sent.add(null);
        if (why.counted() != null) {
          why.counted().incrementAndGet();
          heldBack++;
        } else if (firstFailure == null) {
          firstFailure = why.reason();
        }
        continue;
      }
      try {
        ProducerRecord<String, byte[]> record =
            new ProducerRecord<>(
                to, partition(to), Long.toString(m.instanceId()), InstanceMessageCodec.encode(m));
        if (tracing.enabled()) {
          Tracing.traceparent(span.getSpanContext())
              .ifPresent(
                  tp ->
                      record
                          .headers()
                          .add(Tracing.TRACEPARENT, tp.getBytes(StandardCharsets.UTF_8)));
        }
        sent.add(producer.send(record));
      } catch (KafkaException | IllegalStateException e) {
        log.warn(
            "Could not send instance {} of task {}: {}", m.instanceId(), m.taskId(), e.toString());
        end(span, e.toString());
        sent.add(null);
        if (firstFailure == null) {
          firstFailure = e.toString();
        }
        if (e instanceof org.apache.kafka.common.errors.TimeoutException) {
          // No metadata within max.block.ms (the whole acknowledgement timeout): the cluster
          // cannot be reached. The deadline check above may still pass by a hair (the wait began
          // just after it), and the next message would block as long again, doubling the call's
          // bound (seen in InstancePublisherTest: 4.0003 s for a 2 s timeout).
          notSent = messages.size() - sent.size();
          break;
        }
      }
    }
    List<Long> acknowledged = new ArrayList<>(sent.size());
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
    // Messages held back for an unusable topic were logged once per topic in check().
    if (acknowledged.size() + heldBack < messages.size()) {
      log.warn(
          "Kafka acknowledged {} of {} instance messages on {} ({} not sent, {} held back for an"
              + " unusable topic); first failure: {}",
          acknowledged.size(),
          messages.size(),
          topic,
          notSent,
          heldBack,
          firstFailure);
    }
    return acknowledged;
  }

  /**
   * Why messages to a topic are not sent in this call.
   *
   * @param counted the counter of the held-back messages, null when the check itself failed (Kafka
   *     down: reported with the call's other failures)
   */
  private record Unusable(String reason, AtomicLong counted) {}

  /**
   * Checks a queue's topic before the first message to it, once per call until it is found; null
   * when it may be sent to.
   */
  private Unusable check(String to, long deadline, Map<String, Unusable> thisCall) {
    if (checkedTopics.contains(to)) {
      return null;
    }
    if (thisCall.containsKey(to)) {
      return thisCall.get(to);
    }
    Duration wait = Duration.ofNanos(Math.max(deadline - System.nanoTime(), 1_000_000L));
    Unusable why;
    try {
      why =
          switch (TopicAdmin.exists(admin(), to, wait)) {
            case PRESENT -> null;
            case NOT_READY ->
                new Unusable(
                    "topic " + to + " has a partition whose leader does not serve it yet", null);
            case MISSING ->
                new Unusable(
                    "topic "
                        + to
                        + " does not exist: run the create-topics step with its queue in kafka.queues"
                        + " (services create no topics)",
                    heldBackMissing);
            case NOT_AUTHORIZED ->
                new Unusable(
                    "this service's Kafka principal may not describe topic "
                        + to
                        + ": run the create-topics step with its queue in kafka.queues, which grants"
                        + " the instances topic's ACLs on it (see docs/security.md)",
                    heldBackNotAuthorized);
          };
    } catch (IllegalStateException | KafkaException e) {
      why = new Unusable("cannot check topic " + to + ": " + e.getMessage(), null);
    }
    thisCall.put(to, why);
    if (why == null) {
      checkedTopics.add(to);
      if (reportedUnusable.remove(to)) {
        log.info("Topic {} exists now; publishing its queue's instances again", to);
      }
    } else if (why.counted() != null && reportedUnusable.add(to)) {
      log.warn(
          "Not publishing to {}: {}. Its instances stay PENDING and undispatched, and are"
              + " published by the sweep once the topic exists (counted in {})",
          to,
          why.reason(),
          UNUSABLE_TOPIC_METER);
    }
    return why;
  }

  private synchronized Admin admin() {
    if (admin == null) {
      Map<String, Object> props = settings.adminProps();
      // The admin client refuses an API timeout shorter than its request timeout (30 s).
      props.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) ackTimeout.toMillis());
      props.putIfAbsent(
          AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ackTimeout.toMillis());
      admin = Admin.create(props);
    }
    return admin;
  }

  /**
   * A partition of {@code to} picked at random (see the class comment). The producer knows the
   * partitions from its metadata; the first call for a topic waits for them (at most {@code
   * max.block.ms}, the acknowledgement timeout).
   */
  private int partition(String to) {
    int n = producer.partitionsFor(to).size();
    return n <= 1 ? 0 : ThreadLocalRandom.current().nextInt(n);
  }

  private Span startSpan(InstanceMessage m, String to) {
    return tracing
        .tracer()
        .spanBuilder(spanName)
        .setParent(tracing.instanceParent(m.instanceId()))
        .setSpanKind(SpanKind.PRODUCER)
        .setAttribute(Tracing.INSTANCE, m.instanceId())
        .setAttribute(Tracing.TASK, m.taskId())
        .setAttribute(Tracing.WINDOW, m.windowKey())
        .setAttribute("messaging.system", "kafka")
        .setAttribute("messaging.destination.name", to)
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
    synchronized (this) {
      if (admin != null) {
        admin.close(ackTimeout);
      }
    }
  }
}
