package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.KafkaSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The trial of Kafka share groups (KIP-932) as the queue mechanism (docs/architecture.md): two
 * share consumers of one group, one of which stops fetching after it joined, like a worker whose
 * slots are all taken; how many of 20 records published afterwards does the other receive within 15
 * s, for a topic of 1 and of 4 partitions? Run on demand, not in the build:
 *
 * <pre>
 * ./mvnw -B -pl worker-service -am test -Dtest=ShareGroupMeasurement -Dcarillon.measure=true \
 *     -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
@EnabledIfSystemProperty(named = "carillon.measure", matches = "true")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ShareGroupMeasurement {
  @Test
  void a_member_that_stops_fetching_and_one_that_fetches() throws Exception {
    KafkaSettings kafka = KafkaSettings.of(DevStack.shared().kafkaBootstrap());
    for (int partitions : new int[] {1, 4}) {
      String topic = "share-trial." + partitions + "." + UUID.randomUUID();
      String group = "share-trial-" + UUID.randomUUID();
      try (Admin admin = Admin.create(kafka.adminProps())) {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        // Without this a share group starts at the latest offset.
        admin
            .incrementalAlterConfigs(
                Map.of(
                    new ConfigResource(ConfigResource.Type.GROUP, group),
                    List.of(
                        new AlterConfigOp(
                            new ConfigEntry("share.auto.offset.reset", "earliest"),
                            AlterConfigOp.OpType.SET))))
            .all()
            .get();
      }
      Map<String, Object> props = kafka.consumerProps(group);
      props.remove(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
      props.remove(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG);
      props.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
      props.put(ConsumerConfig.SHARE_ACQUIRE_MODE_CONFIG, "record_limit");
      props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2);
      try (KafkaShareConsumer<String, byte[]> busy = new KafkaShareConsumer<>(props);
          KafkaShareConsumer<String, byte[]> free = new KafkaShareConsumer<>(props)) {
        busy.subscribe(List.of(topic));
        free.subscribe(List.of(topic));
        for (int i = 0; i < 10; i++) {
          busy.poll(Duration.ofMillis(200));
          free.poll(Duration.ofMillis(200));
        }
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.producerProps())) {
          for (int i = 0; i < 20; i++) {
            producer
                .send(
                    new ProducerRecord<>(
                        topic, "key" + i, ("v" + i).getBytes(StandardCharsets.UTF_8)))
                .get();
          }
        }
        Set<String> got = new HashSet<>();
        long start = System.nanoTime();
        while (System.nanoTime() - start < Duration.ofSeconds(15).toNanos() && got.size() < 20) {
          for (ConsumerRecord<String, byte[]> r : free.poll(Duration.ofMillis(200))) {
            got.add(new String(r.value(), StandardCharsets.UTF_8));
            free.acknowledge(r, AcknowledgeType.ACCEPT);
          }
          free.commitSync();
        }
        System.out.printf(
            "SHARE partitions=%d: the fetching member got %d of 20 records in %d ms%n",
            partitions, got.size(), Duration.ofNanos(System.nanoTime() - start).toMillis());
        assertThat(got).isNotEmpty();
      }
    }
  }
}
