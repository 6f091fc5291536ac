package dev.carillon.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a stack chooses its ports for a data directory, without starting any server. */
class StackPortsTest {
  @TempDir Path dir;

  private final DevStackOptions freePorts = DevStackOptions.defaults();

  @Test
  void the_ports_chosen_for_a_directory_are_recorded_and_chosen_again() throws Exception {
    StackPorts first = StackPorts.assign(dir, freePorts);

    assertThat(first.postgres())
        .isNotIn(first.kafka(), first.kafkaController(), first.zooKeeper())
        .isPositive();
    assertThat(first.kafka()).isNotIn(first.kafkaController(), first.zooKeeper());
    assertThat(first.kafkaController()).isNotEqualTo(first.zooKeeper());
    assertThat(recorded().getProperty("kafka")).isEqualTo(Integer.toString(first.kafka()));

    StackPorts second = StackPorts.assign(dir, freePorts);

    assertThat(second).isEqualTo(first);
    assertThat(second.changes()).isEmpty();
  }

  @Test
  void a_recorded_port_another_program_holds_is_replaced_and_the_change_is_reported()
      throws Exception {
    StackPorts first = StackPorts.assign(dir, freePorts);
    StackPorts second;
    try (ServerSocket squatter =
        new ServerSocket(first.kafka(), 1, InetAddress.getLoopbackAddress())) {
      second = StackPorts.assign(dir, freePorts);
    }

    assertThat(second.kafka()).isNotEqualTo(first.kafka());
    assertThat(second.postgres()).isEqualTo(first.postgres());
    assertThat(second.kafkaController()).isEqualTo(first.kafkaController());
    assertThat(second.zooKeeper()).isEqualTo(first.zooKeeper());
    assertThat(second.changes())
        .singleElement(InstanceOfAssertFactories.STRING)
        .startsWith(
            "Kafka port " + first.kafka() + " recorded in " + dir.resolve("ports.properties"))
        .endsWith("using " + second.kafka() + " instead");
    // The new port is recorded, so the next start keeps it.
    assertThat(StackPorts.assign(dir, freePorts).kafka()).isEqualTo(second.kafka());
  }

  @Test
  void a_requested_port_wins_over_the_recorded_one_and_is_recorded() throws Exception {
    StackPorts first = StackPorts.assign(dir, freePorts);
    int requested;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      requested = s.getLocalPort();
    }

    StackPorts second = StackPorts.assign(dir, freePorts.withPorts(0, 0, 0, requested));

    assertThat(second.zooKeeper()).isEqualTo(requested);
    assertThat(second.postgres()).isEqualTo(first.postgres());
    assertThat(second.changes()).isEmpty();
    assertThat(recorded().getProperty("zookeeper")).isEqualTo(Integer.toString(requested));
  }

  @Test
  void a_damaged_entry_is_ignored_and_rewritten() throws Exception {
    StackPorts first = StackPorts.assign(dir, freePorts);
    Properties p = recorded();
    p.setProperty("postgres", "not-a-port");
    p.setProperty("kafka", "70000");
    try (var out = Files.newOutputStream(dir.resolve(StackPorts.FILE))) {
      p.store(out, null);
    }

    StackPorts second = StackPorts.assign(dir, freePorts);

    assertThat(second.zooKeeper()).isEqualTo(first.zooKeeper());
    assertThat(second.postgres()).isPositive();
    assertThat(second.kafka()).isBetween(1, 65535);
    assertThat(recorded().getProperty("postgres")).isEqualTo(Integer.toString(second.postgres()));
  }

  private Properties recorded() throws Exception {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(dir.resolve(StackPorts.FILE))) {
      p.load(in);
    }
    return p;
  }
}
