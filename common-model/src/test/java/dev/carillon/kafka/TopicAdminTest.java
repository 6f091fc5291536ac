package dev.carillon.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackExtension;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DevStackExtension.class)
class TopicAdminTest {

  @Test
  void creates_the_instances_and_compacted_config_topics_idempotently(DevStack stack)
      throws Exception {
    KafkaSettings settings = KafkaSettings.of(stack.kafkaBootstrap());

    TopicAdmin.ensureTopics(settings, 6, (short) 1);
    TopicAdmin.ensureTopics(settings, 6, (short) 1); // second call: topics exist, no error

    try (Admin admin = Admin.create(settings.adminProps())) {
      Map<String, TopicDescription> topics =
          admin.describeTopics(Set.of(Topics.INSTANCES, Topics.CONFIG)).allTopicNames().get();
      assertThat(topics.get(Topics.INSTANCES).partitions()).hasSize(6);
      assertThat(topics.get(Topics.CONFIG).partitions()).hasSize(TopicAdmin.CONFIG_PARTITIONS);

      ConfigResource config = new ConfigResource(ConfigResource.Type.TOPIC, Topics.CONFIG);
      Config configs = admin.describeConfigs(List.of(config)).all().get().get(config);
      assertThat(configs.get("cleanup.policy").value()).isEqualTo("compact");
      ConfigResource instances = new ConfigResource(ConfigResource.Type.TOPIC, Topics.INSTANCES);
      assertThat(
              admin
                  .describeConfigs(List.of(instances))
                  .all()
                  .get()
                  .get(instances)
                  .get("cleanup.policy")
                  .value())
          .isEqualTo("delete");
    }
  }

  @Test
  void refuses_nonsense_partition_and_replication_counts() {
    KafkaSettings settings = KafkaSettings.of("localhost:1");

    assertThatThrownBy(() -> TopicAdmin.ensureTopics(settings, 0, (short) 1))
        .hasMessageContaining("instancePartitions");
    assertThatThrownBy(() -> TopicAdmin.ensureTopics(settings, 1, (short) 0))
        .hasMessageContaining("replication");
  }
}
