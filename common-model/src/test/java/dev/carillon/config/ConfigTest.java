package dev.carillon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigTest {
  @TempDir Path dir;

  private Path file(String text) throws IOException {
    Path p = dir.resolve("carillon.properties");
    Files.writeString(p, text);
    return p;
  }

  @Test
  void the_environment_overrides_the_file() throws IOException {
    Config c =
        Config.load(
            Optional.of(file("db.url=jdbc:postgresql://file/db\ndb.pool-size=4\n")),
            Map.of("CARILLON_DB_POOL_SIZE", "12"));
    assertThat(c.require("db.url")).isEqualTo("jdbc:postgresql://file/db");
    assertThat(c.integer("db.pool-size", 8, 1, 200)).isEqualTo(12);
  }

  @Test
  void a_secret_can_come_from_a_mounted_file() throws IOException {
    Path secret = dir.resolve("db-password");
    Files.writeString(secret, "s3cret\n");
    Config c =
        Config.load(Optional.empty(), Map.of("CARILLON_DB_PASSWORD_FILE", secret.toString()));
    assertThat(c.require("db.password")).isEqualTo("s3cret");
  }

  @Test
  void a_missing_key_names_the_key_and_its_variable() {
    Config c = Config.load(Optional.empty(), Map.of());
    assertThatThrownBy(() -> c.require("kafka.bootstrap"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.bootstrap")
        .hasMessageContaining("CARILLON_KAFKA_BOOTSTRAP");
  }

  @Test
  void a_bad_value_names_the_key_the_source_and_the_value() {
    Config c = Config.load(Optional.empty(), Map.of("CARILLON_WORKER_CONCURRENCY", "lots"));
    assertThatThrownBy(() -> c.integer("worker.concurrency", 4, 1, 256))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("worker.concurrency")
        .hasMessageContaining("environment CARILLON_WORKER_CONCURRENCY")
        .hasMessageContaining("'lots'");
    Config d = Config.of(Map.of("retry.scan-interval", "-5s"));
    assertThatThrownBy(
            () ->
                d.duration(
                    "retry.scan-interval",
                    Duration.ofSeconds(1),
                    Duration.ofMillis(10),
                    Duration.ofMinutes(5)))
        .hasMessageContaining("retry.scan-interval")
        .hasMessageContaining("'-5s'");
    assertThat(
            Config.of(Map.of("x", "250ms"))
                .duration("x", Duration.ZERO, Duration.ZERO, Duration.ofHours(1)))
        .isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void secret_values_are_never_printed_in_errors() {
    Config c = Config.of(Map.of("db.password", "hunter2"));
    assertThatThrownBy(() -> c.integer("db.password", 0, 0, 1))
        .hasMessageContaining("db.password")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hunter2"));
  }

  @Test
  void kafka_pass_through_settings_come_from_file_and_environment() throws IOException {
    Config c =
        Config.load(
            Optional.of(file("kafka.properties.security.protocol=SASL_SSL\n")),
            Map.of("CARILLON_KAFKA_PROPERTIES_SASL_MECHANISM", "PLAIN"));
    assertThat(c.withPrefix("kafka.properties."))
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "PLAIN");
  }

  @Test
  void a_pass_through_secret_comes_from_the_file_its_variable_names() throws IOException {
    Path jaas = dir.resolve("jaas");
    Files.writeString(jaas, "ScramLoginModule required username=\"worker\" password=\"p\";\n");
    Config c =
        Config.load(
            Optional.empty(),
            Map.of(
                "CARILLON_KAFKA_PROPERTIES_SASL_JAAS_CONFIG_FILE",
                jaas.toString(),
                "CARILLON_KAFKA_PROPERTIES_SECURITY_PROTOCOL",
                "SASL_SSL"));
    assertThat(c.withPrefix("kafka.properties."))
        .containsOnlyKeys("sasl.jaas.config", "security.protocol")
        .containsEntry(
            "sasl.jaas.config", "ScramLoginModule required username=\"worker\" password=\"p\";");
    Config missing =
        Config.load(
            Optional.empty(),
            Map.of("CARILLON_KAFKA_PROPERTIES_SSL_KEY_PASSWORD_FILE", "/nonexistent/secret"));
    assertThatThrownBy(() -> missing.withPrefix("kafka.properties."))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("CARILLON_KAFKA_PROPERTIES_SSL_KEY_PASSWORD_FILE names /nonexistent");
  }

  @Test
  void common_settings_validate_at_start_and_mask_the_password() {
    Config c =
        Config.of(
            Map.of(
                "db.url", "jdbc:postgresql://localhost:5432/carillon",
                "db.password", "hunter2",
                "kafka.bootstrap", "localhost:9092",
                "zk.connect", "localhost:2181"));
    CommonSettings s = CommonSettings.from(c, 8081);
    assertThat(s.adminPort()).isEqualTo(8081);
    assertThat(s.db().password()).isEqualTo("hunter2");
    assertThat(s.describe()).doesNotContain("hunter2").contains("localhost:9092");
    assertThatThrownBy(() -> CommonSettings.from(Config.of(Map.of("db.url", "mysql://x")), 1))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("db.url")
        .hasMessageContaining("mysql://x");
  }

  @Test
  void common_settings_keys_are_exactly_the_keys_common_settings_reads() {
    Config c =
        Config.of(
            Map.of(
                "db.url",
                "jdbc:postgresql://db/x",
                "kafka.bootstrap",
                "k:9092",
                "zk.connect",
                "z"));
    CommonSettings.from(c, 8080);
    assertThat(c.keysRead()).containsExactlyInAnyOrderElementsOf(CommonSettings.KEYS);
  }

  @Test
  void keys_read_records_plain_keys_and_prefixes() {
    Config c = Config.of(Map.of());
    c.optional("a.b");
    c.withPrefix("kafka.properties.");
    assertThat(c.keysRead()).containsExactly("a.b", "kafka.properties.*");
  }

  @Test
  void a_key_naming_where_a_secret_is_mounted_is_not_itself_secret() {
    assertThat(Config.isSecret("db.password")).isTrue();
    assertThat(Config.isSecret("api.token")).isTrue();
    assertThat(Config.isSecret("kafka.properties.sasl.jaas.config")).isTrue();
    assertThat(Config.isSecret("api.tokens-file")).isFalse();
  }

  @Test
  void clock_offset_is_a_signed_duration_within_a_day_and_zero_unless_set() {
    assertThat(CommonSettings.clockOffset(Config.of(Map.of()))).isZero();
    assertThat(CommonSettings.clockOffset(Config.of(Map.of("clock.offset", "30s"))))
        .isEqualTo(java.time.Duration.ofSeconds(30));
    assertThat(CommonSettings.clockOffset(Config.of(Map.of("clock.offset", "-30s"))))
        .isEqualTo(java.time.Duration.ofSeconds(-30));
    assertThatThrownBy(() -> CommonSettings.clockOffset(Config.of(Map.of("clock.offset", "soon"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("clock.offset")
        .hasMessageContaining("soon");
    assertThatThrownBy(() -> CommonSettings.clockOffset(Config.of(Map.of("clock.offset", "2d"))))
        .hasMessageContaining("within a day");
  }
}
