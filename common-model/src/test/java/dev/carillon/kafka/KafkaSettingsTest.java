package dev.carillon.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaSettingsTest {
  private static final String JAAS =
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"hunter2\";";

  private final KafkaSettings settings =
      new KafkaSettings(
          "kafka-1:9093",
          Map.of(
              "security.protocol", "SASL_SSL",
              "sasl.mechanism", "PLAIN",
              "sasl.jaas.config", JAAS,
              "ssl.truststore.password", "trust-me",
              "ssl.truststore.location", "/etc/kafka/truststore.jks",
              // Carillon decides idempotence for its producers; extra cannot turn it off.
              "enable.idempotence", "false"));

  @Test
  void extra_properties_reach_every_client() {
    for (Map<String, Object> props :
        java.util.List.of(
            settings.producerProps(), settings.consumerProps("workers"), settings.adminProps())) {
      assertThat(props)
          .containsEntry("bootstrap.servers", "kafka-1:9093")
          .containsEntry("security.protocol", "SASL_SSL")
          .containsEntry("sasl.jaas.config", JAAS)
          .containsEntry("ssl.truststore.location", "/etc/kafka/truststore.jks");
    }
  }

  @Test
  void carillon_role_settings_win_over_extra() {
    assertThat(settings.producerProps())
        .containsEntry("enable.idempotence", true)
        .containsEntry("acks", "all");
    assertThat(settings.consumerProps("workers"))
        .containsEntry("group.id", "workers")
        .containsEntry("enable.auto.commit", false)
        .containsEntry(
            "value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
  }

  @Test
  void secrets_never_appear_in_the_description() {
    assertThat(settings.toString())
        .contains("SASL_SSL", "/etc/kafka/truststore.jks", "kafka-1:9093")
        .doesNotContain("hunter2", "trust-me", "PlainLoginModule");
    assertThat(settings.describe()).contains("sasl.jaas.config=*****");
  }

  @Test
  void bootstrap_is_required_and_cannot_hide_in_extra() {
    assertThatThrownBy(() -> KafkaSettings.of(" ")).hasMessageContaining("bootstrap");
    assertThatThrownBy(() -> new KafkaSettings("a:1", Map.of("bootstrap.servers", "b:2")))
        .hasMessageContaining("bootstrap.servers");
    assertThatThrownBy(() -> settings.consumerProps("")).hasMessageContaining("groupId");
  }
}
