package dev.carillon.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DevStackExtension.class)
class InstancePublisherTest {
  private static final Instant AT = Instant.parse("2026-03-29T08:00:00Z");
  private static final Duration ACK_TIMEOUT = Duration.ofSeconds(2);

  @Test
  void published_messages_are_acknowledged_and_consumed_keyed_by_instance(DevStack stack) {
    KafkaSettings settings = KafkaSettings.of(stack.kafkaBootstrap());
    String topic = uniqueTopic();
    List<InstanceMessage> messages =
        List.of(
            InstanceMessage.of(11, "digest", "2026-03-29", AT),
            InstanceMessage.of(12, "digest", "2026-03-30", AT),
            InstanceMessage.of(13, "cleanup", "2026-03-29", AT));

    List<Long> acked;
    try (InstancePublisher publisher =
        new InstancePublisher(settings, topic, Duration.ofSeconds(30))) {
      acked = publisher.publish(messages);
    }

    assertThat(acked).containsExactly(11L, 12L, 13L);
    List<ConsumerRecord<String, byte[]>> records = consumeAtLeast(settings, topic, 3);
    assertThat(records)
        .extracting(r -> r.key() + ":" + InstanceMessageCodec.decode(r.value()).instanceId())
        .containsExactlyInAnyOrder("11:11", "12:12", "13:13");
    assertThat(records)
        .extracting(r -> InstanceMessageCodec.decode(r.value()))
        .containsExactlyInAnyOrderElementsOf(messages);
  }

  @Test
  void each_instance_goes_to_its_queues_topic_and_is_spread_at_random(DevStack stack)
      throws Exception {
    KafkaSettings settings = KafkaSettings.of(stack.kafkaBootstrap());
    String base = uniqueTopic();
    stack.createTopic(base, 4);
    // As the create-topics step makes it (kafka.queues=gpu): the publisher creates no topic.
    stack.createTopic(Topics.instances(base, "gpu"), 4);
    List<InstanceMessage> messages = new ArrayList<>();
    for (int i = 1; i <= 200; i++) {
      messages.add(InstanceMessage.of(i, i % 2 == 0 ? "summarize" : "digest", "w" + i, AT));
    }
    QueueRouter router =
        tasks -> {
          java.util.Map<String, String> out = new java.util.HashMap<>();
          tasks.forEach(t -> out.put(t, t.equals("summarize") ? "gpu" : "default"));
          return out;
        };
    try (InstancePublisher publisher =
        new InstancePublisher(settings, base, Duration.ofSeconds(30), router)) {
      assertThat(publisher.publish(messages)).hasSize(200);
    }

    List<ConsumerRecord<String, byte[]>> gpu =
        consumeAtLeast(settings, Topics.instances(base, "gpu"), 100);
    List<ConsumerRecord<String, byte[]>> byDefault = consumeAtLeast(settings, base, 100);
    assertThat(gpu)
        .extracting(r -> InstanceMessageCodec.decode(r.value()).taskId())
        .containsOnly("summarize")
        .hasSize(100);
    assertThat(byDefault)
        .extracting(r -> InstanceMessageCodec.decode(r.value()).taskId())
        .containsOnly("digest")
        .hasSize(100);
    // One task's instances are not tied to one partition (so to one worker).
    assertThat(gpu.stream().map(ConsumerRecord::partition).distinct().count()).isEqualTo(4);
  }

  @Test
  void a_message_to_a_queue_without_a_topic_is_held_back_and_creates_no_topic_until_the_step_does(
      DevStack stack) throws Exception {
    KafkaSettings settings = KafkaSettings.of(stack.kafkaBootstrap());
    String base = uniqueTopic();
    String gpuTopic = Topics.instances(base, "gpu");
    stack.createTopic(base, 2);
    QueueRouter router =
        tasks -> {
          java.util.Map<String, String> out = new java.util.HashMap<>();
          tasks.forEach(t -> out.put(t, t.equals("summarize") ? "gpu" : "default"));
          return out;
        };
    List<InstanceMessage> messages =
        List.of(
            InstanceMessage.of(1, "summarize", "w1", AT),
            InstanceMessage.of(2, "digest", "w1", AT),
            InstanceMessage.of(3, "summarize", "w2", AT));
    try (InstancePublisher publisher =
            new InstancePublisher(settings, base, InstancePublisher.DEFAULT_ACK_TIMEOUT, router);
        org.apache.kafka.clients.admin.Admin admin =
            org.apache.kafka.clients.admin.Admin.create(settings.adminProps())) {
      assertThat(publisher.publish(messages))
          .as("only the default queue's message is sent")
          .containsExactly(2L);
      assertThat(publisher.publish(messages))
          .as("still held back at the next call, which checks again")
          .containsExactly(2L);
      assertThat(publisher.heldBackForMissingTopic()).isEqualTo(4);
      // The devstack broker auto-creates topics on a producer's metadata request.
      assertThat(TopicAdmin.exists(admin, gpuTopic, Duration.ofSeconds(10)))
          .isEqualTo(TopicAdmin.Presence.MISSING);

      stack.createTopic(gpuTopic, 2);

      assertThat(publisher.publish(messages)).containsExactly(1L, 2L, 3L);
      assertThat(publisher.heldBackForMissingTopic()).isEqualTo(4);
    }
    assertThat(consumeAtLeast(settings, gpuTopic, 2))
        .extracting(r -> InstanceMessageCodec.decode(r.value()).instanceId())
        .containsExactlyInAnyOrder(1L, 3L);
  }

  @Test
  void a_malformed_record_reaches_the_consumer_as_bytes_it_can_skip(DevStack stack)
      throws Exception {
    KafkaSettings settings = KafkaSettings.of(stack.kafkaBootstrap());
    String topic = uniqueTopic();
    try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(settings.producerProps())) {
      raw.send(new ProducerRecord<>(topic, "t", "garbage".getBytes(StandardCharsets.UTF_8))).get();
      raw.send(
              new ProducerRecord<>(
                  topic, "t", InstanceMessageCodec.encode(InstanceMessage.of(5, "t", "w", AT))))
          .get();
    }

    List<ConsumerRecord<String, byte[]>> records = consumeAtLeast(settings, topic, 2);

    assertThatThrownBy(() -> InstanceMessageCodec.decode(records.get(0).value()))
        .isInstanceOf(MalformedMessageException.class);
    assertThat(InstanceMessageCodec.decode(records.get(1).value()).instanceId()).isEqualTo(5);
  }

  @Test
  void publish_while_kafka_is_down_returns_no_ids_within_the_bound_and_recovers(DevStack stack) {
    KafkaSettings settings = KafkaSettings.of(stack.kafkaBootstrap());
    String topic = uniqueTopic();
    try (InstancePublisher publisher = new InstancePublisher(settings, topic, ACK_TIMEOUT)) {
      // Warm up: the producer now knows the topic's partitions and leader.
      assertThat(publisher.publish(List.of(InstanceMessage.of(1, "t", "w1", AT))))
          .containsExactly(1L);

      List<Long> whileDown;
      List<Long> coldWhileDown;
      Duration elapsed;
      Duration coldElapsed;
      stack.stopKafka();
      try {
        long t0 = System.nanoTime();
        whileDown =
            publisher.publish(
                List.of(
                    InstanceMessage.of(2, "t", "w2", AT), InstanceMessage.of(3, "u", "w2", AT)));
        elapsed = Duration.ofNanos(System.nanoTime() - t0);

        // A publisher that has never seen the cluster blocks on metadata instead; same bound.
        try (InstancePublisher cold = new InstancePublisher(settings, uniqueTopic(), ACK_TIMEOUT)) {
          long t1 = System.nanoTime();
          coldWhileDown =
              cold.publish(
                  List.of(
                      InstanceMessage.of(4, "t", "w", AT),
                      InstanceMessage.of(5, "t", "w", AT),
                      InstanceMessage.of(6, "t", "w", AT)));
          coldElapsed = Duration.ofNanos(System.nanoTime() - t1);
        }
      } finally {
        stack.startKafka();
      }

      assertThat(whileDown).isEmpty();
      assertThat(coldWhileDown).isEmpty();
      assertThat(elapsed).isLessThan(ACK_TIMEOUT.plusSeconds(2));
      assertThat(coldElapsed).isLessThan(ACK_TIMEOUT.plusSeconds(2));

      // The same publisher recovers once the broker is back; no restart of the service needed.
      List<Long> afterRestart = new ArrayList<>();
      await("the publisher to deliver again after the broker restart")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                afterRestart.clear();
                afterRestart.addAll(
                    publisher.publish(
                        List.of(
                            InstanceMessage.of(7, "t", "w3", AT),
                            InstanceMessage.of(8, "u", "w3", AT))));
                return afterRestart.size() == 2;
              });
      assertThat(afterRestart).containsExactly(7L, 8L);
    }
  }

  @Test
  void ack_timeout_below_one_second_is_refused(DevStack stack) {
    assertThatThrownBy(
            () ->
                new InstancePublisher(
                    KafkaSettings.of(stack.kafkaBootstrap()), uniqueTopic(), Duration.ofMillis(10)))
        .hasMessageContaining("ackTimeout")
        .hasMessageContaining("PT0.01S");
  }

  private static String uniqueTopic() {
    return "test.instances." + UUID.randomUUID();
  }

  private static List<ConsumerRecord<String, byte[]>> consumeAtLeast(
      KafkaSettings settings, String topic, int count) {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(settings.consumerProps("test-" + UUID.randomUUID()))) {
      consumer.subscribe(List.of(topic));
      await("the consumer to read " + count + " records from " + topic)
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                assertThat(records).hasSizeGreaterThanOrEqualTo(count);
              });
    }
    return records;
  }
}
