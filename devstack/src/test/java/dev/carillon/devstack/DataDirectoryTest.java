package dev.carillon.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Stacks on a persistent data directory: one at a time, and what stays between them. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DataDirectoryTest {
  @TempDir Path tmp;

  @Test
  void a_second_stack_on_a_directory_in_use_is_refused_and_a_closed_stack_s_nodes_stay_closed()
      throws Exception {
    Path dir = tmp.resolve("data");
    DevStack first = DevStack.start(DevStackOptions.defaults().withDataDir(dir));
    try {
      assertThatThrownBy(() -> DevStack.start(DevStackOptions.defaults().withDataDir(dir)))
          .isInstanceOf(DevStackException.class)
          .hasMessageContaining("data directory " + dir)
          .hasMessageContaining("in use by another DevStack in this JVM");
      // The refused start touched nothing of the first stack.
      try (Connection c =
              DriverManager.getConnection(first.jdbcUrl(), first.dbUser(), first.dbPassword());
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select 1")) {
        assertThat(rs.next()).isTrue();
      }
    } finally {
      first.close();
    }

    assertThat(first.kafka().isRunning()).isFalse();
    assertThatThrownBy(() -> first.kafka().start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Kafka on port " + first.kafka().port() + " is closed");
    first.postgres().stop(); // stopping a closed node does nothing
  }

  @Test
  void a_directory_keeps_its_ports_across_stacks_and_a_fresh_start() throws Exception {
    Path dir = tmp.resolve("ports");
    int pg;
    int kafka;
    int zk;
    try (DevStack first = DevStack.start(DevStackOptions.defaults().withDataDir(dir))) {
      pg = first.postgresPort();
      kafka = first.kafka().port();
      zk = first.zooKeeper().port();
      execute(first, "create table kept (v text)");
      assertThat(first.portChanges()).isEmpty();
    }

    int newKafka;
    try (ServerSocket squatter = new ServerSocket(kafka, 1, InetAddress.getLoopbackAddress());
        DevStack second = DevStack.start(DevStackOptions.defaults().withDataDir(dir))) {
      assertThat(second.postgresPort()).isEqualTo(pg);
      assertThat(second.zooKeeper().port()).isEqualTo(zk);
      newKafka = second.kafka().port();
      assertThat(newKafka).isNotEqualTo(kafka);
      assertThat(second.portChanges())
          .singleElement(InstanceOfAssertFactories.STRING)
          .contains("Kafka port " + kafka)
          .contains("using " + newKafka);
      second.createTopic("ports-" + UUID.randomUUID(), 1);
      execute(second, "insert into kept values ('still here')");
    }

    try (DevStack fresh =
        DevStack.start(DevStackOptions.defaults().withDataDir(dir).withFresh(true))) {
      assertThat(fresh.postgresPort()).isEqualTo(pg);
      assertThat(fresh.kafka().port()).isEqualTo(newKafka);
      assertThat(fresh.zooKeeper().port()).isEqualTo(zk);
      assertThatThrownBy(() -> execute(fresh, "select * from kept"))
          .as("a fresh start wipes the data")
          .hasMessageContaining("\"kept\" does not exist");
      fresh.restartZooKeeper();
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .as("ZooKeeper's configuration files, one written per start, are removed on close")
          .noneMatch(name -> name.startsWith("zookeeper.configuration"))
          .contains("ports.properties", "devstack.lock", "pg", "kafka", "zk");
    }
  }

  private static void execute(DevStack stack, String sql) throws Exception {
    try (Connection c =
            DriverManager.getConnection(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
