package dev.carillon.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DevStackOptionsTest {

  @Test
  void defaults_use_a_temporary_directory_and_free_ports() {
    DevStackOptions o = DevStackOptions.defaults();

    assertThat(o.persistentDataDir()).isEmpty();
    assertThat(o.postgresPort()).isZero();
    assertThat(o.kafkaPartitions()).isEqualTo(DevStackOptions.DEFAULT_KAFKA_PARTITIONS);
  }

  @Test
  void invalid_ports_and_partitions_are_refused_with_the_field_name() {
    assertThatThrownBy(() -> DevStackOptions.defaults().withPorts(0, 70000, 0, 0))
        .hasMessageContaining("kafkaPort")
        .hasMessageContaining("70000");
    assertThatThrownBy(() -> DevStackOptions.defaults().withKafkaPartitions(0))
        .hasMessageContaining("kafkaPartitions");
  }

  @Test
  void main_parses_data_dir_and_fresh() {
    DevStackOptions o = DevStackMain.parse(new String[] {"--data-dir", "x/y", "--fresh"});

    assertThat(o.dataDir()).isEqualTo(Path.of("x/y").toAbsolutePath().normalize());
    assertThat(o.fresh()).isTrue();
    assertThat(o.synchronousCommit()).as("off unless asked for").isFalse();
  }

  @Test
  void main_turns_on_synchronous_commit_for_runs_that_kill_postgres() {
    DevStackOptions o = DevStackMain.parse(new String[] {"--synchronous-commit"});

    assertThat(o.synchronousCommit()).isTrue();
    assertThat(o.withKafkaPartitions(2).synchronousCommit()).as("kept by copies").isTrue();
  }

  @Test
  void an_unknown_control_command_is_refused_naming_the_known_ones() {
    assertThatThrownBy(() -> DevStackMain.execute(null, "crash-kafka"))
        .hasMessageContaining("kill-postgres")
        .hasMessageContaining("freeze-postgres")
        .hasMessageContaining("stop-zookeeper");
  }

  @Test
  void main_refuses_unknown_arguments_and_fresh_without_a_directory() {
    assertThatThrownBy(() -> DevStackMain.parse(new String[] {"--frsh"}))
        .hasMessageContaining("--frsh");
    assertThatThrownBy(() -> DevStackMain.parse(new String[] {"--fresh"}))
        .hasMessageContaining("--data-dir");
  }

  @Test
  void main_parses_a_listen_address_and_refuses_a_host_name() {
    assertThat(DevStackMain.parse(new String[] {"--listen-address", "10.77.3.1"}).listenAddress())
        .isEqualTo("10.77.3.1");
    assertThat(DevStackOptions.defaults().listenAddress()).isNull();
    assertThatThrownBy(() -> DevStackMain.parse(new String[] {"--listen-address", "db.example"}))
        .hasMessageContaining("listenAddress")
        .hasMessageContaining("db.example");
    assertThatThrownBy(() -> DevStackMain.parse(new String[] {"--listen-address"}))
        .hasMessageContaining("--listen-address");
  }
}
