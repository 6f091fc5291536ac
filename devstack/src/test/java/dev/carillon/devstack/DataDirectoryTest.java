package dev.carillon.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
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
}
