package dev.carillon.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The PostgreSQL fault hooks on the shared stack: a crash by SIGKILL to the postmaster that keeps
 * what was committed durably, and a hang by SIGSTOP that a socket timeout sees. Each test leaves
 * the server running, as the shared stack's contract asks.
 */
@ExtendWith(DevStackExtension.class)
@Timeout(120)
class PostgresFaultHooksTest {

  @Test
  void a_killed_postmaster_is_gone_with_its_backends_and_start_recovers_the_committed_data(
      DevStack stack) throws Exception {
    String url = stack.createDatabase("hooks_kill");
    long before;
    try (Connection c = connect(url, 0);
        Statement s = c.createStatement()) {
      // The shared stack runs with synchronous_commit off; this database's sessions wait for the
      // WAL flush, so what they commit survives a crash.
      s.execute("alter database " + url.replaceAll(".*/", "") + " set synchronous_commit = on");
    }
    try (Connection c = connect(url, 0);
        Statement s = c.createStatement()) {
      s.execute("create table t (v text)");
      s.execute("insert into t values ('committed before the crash')");
    }
    Connection open = connect(url, 0);
    before = stack.postgres().postmasterPid();
    ProcessHandle postmaster = ProcessHandle.of(before).orElseThrow();
    var backends = postmaster.descendants().toList();
    assertThat(backends).as("the postmaster's children").isNotEmpty();

    stack.killPostgres();
    try {
      assertThat(postmaster.isAlive()).isFalse();
      assertThat(backends)
          .as("no backend outlives its postmaster")
          .noneMatch(ProcessHandle::isAlive);
      assertThat(stack.postgres().isRunning()).isFalse();
      try (Statement s = open.createStatement()) {
        assertThatThrownBy(() -> s.executeQuery("select 1"))
            .as("an open connection breaks")
            .isInstanceOf(SQLException.class);
      }
    } finally {
      open.close();
      stack.startPostgres();
    }

    assertThat(stack.postgres().postmasterPid()).isNotEqualTo(before);
    try (Connection c = connect(url, 0);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select v from t")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("committed before the crash");
    }
  }

  @Test
  void a_frozen_server_answers_nothing_until_it_is_thawed(DevStack stack) throws Exception {
    String url = stack.createDatabase("hooks_freeze");
    try (Connection c = connect(url, 1);
        Statement s = c.createStatement()) {
      assertThat(single(s)).isEqualTo(1);

      stack.freezePostgres();
      try {
        assertThat(stack.postgres().isFrozen()).isTrue();
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> single(s))
            .as("the driver's socket timeout ends the wait")
            .isInstanceOf(SQLException.class)
            .hasRootCauseInstanceOf(SocketTimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - t0))
            .as("waited about the socket timeout")
            .isGreaterThanOrEqualTo(Duration.ofMillis(900));
      } finally {
        stack.thawPostgres();
      }
    }
    assertThat(stack.postgres().isFrozen()).isFalse();
    await("PostgreSQL answers after SIGCONT")
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              try (Connection c = connect(url, 5);
                  Statement s = c.createStatement()) {
                assertThat(single(s)).isEqualTo(1);
              }
            });
  }

  @Test
  void freezing_twice_or_thawing_a_running_server_is_refused(DevStack stack) {
    assertThatThrownBy(() -> stack.thawPostgres())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not frozen");
    stack.freezePostgres();
    try {
      assertThatThrownBy(() -> stack.freezePostgres())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("frozen already");
    } finally {
      stack.thawPostgres();
    }
  }

  private static Connection connect(String url, int socketTimeoutSeconds) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", DevStack.DB_USER);
    p.setProperty("password", DevStack.DB_PASSWORD);
    p.setProperty("socketTimeout", Integer.toString(socketTimeoutSeconds));
    return DriverManager.getConnection(url, p);
  }

  private static int single(Statement s) throws SQLException {
    try (ResultSet rs = s.executeQuery("select 1")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
