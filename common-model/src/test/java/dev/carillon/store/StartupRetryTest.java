package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.carillon.devstack.CuttableProxy;
import dev.carillon.devstack.DevStack;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/** A service started while PostgreSQL cannot be reached waits for it, within a limit. */
class StartupRetryTest {

  @Test
  void a_service_pool_started_while_postgres_refuses_connections_connects_once_it_listens()
      throws Exception {
    DevStack stack = DevStack.shared();
    String url = stack.createDatabase("startup_retry");
    Database.open(new DbSettings(url, stack.dbUser(), stack.dbPassword(), 1)).close(); // migrated
    String database = url.substring(url.lastIndexOf('/') + 1);
    String host = url.substring(url.indexOf("//") + 2, url.lastIndexOf(':'));
    int port = Integer.parseInt(url.substring(url.lastIndexOf(':') + 1, url.lastIndexOf('/')));
    int stopped;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      stopped = probe.getLocalPort(); // free again once closed: nothing listens there
    }
    DbSettings down =
        new DbSettings(
                "jdbc:postgresql://127.0.0.1:" + stopped + "/" + database,
                stack.dbUser(),
                stack.dbPassword(),
                2)
            .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(2));
    StartupRetry retry = new StartupRetry(Duration.ofSeconds(60));
    ExecutorService starter = Executors.newSingleThreadExecutor();
    try {
      Future<Database> started = starter.submit(() -> Database.forService(down, null, retry));

      await("two attempts refused")
          .atMost(Duration.ofSeconds(30))
          .until(() -> retry.failures() >= 2);
      assertThat(started).as("still waiting for PostgreSQL").isNotDone();
      try (CuttableProxy up = CuttableProxy.start(host, port, stopped);
          Database db = started.get(30, TimeUnit.SECONDS)) {
        assertThat(db.dsl().fetchValue(DSL.inline(1))).isEqualTo(1);
      }
    } finally {
      starter.shutdownNow();
    }
  }

  @Test
  void it_gives_up_after_its_limit_with_the_last_failure() {
    DbSettings refused =
        new DbSettings("jdbc:postgresql://127.0.0.1:1/none", "u", "p", 1)
            .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(2));
    StartupRetry retry = new StartupRetry(Duration.ofSeconds(4));
    assertThatThrownBy(() -> Database.forService(refused, null, retry))
        .hasStackTraceContaining("refused");
    assertThat(retry.failures()).as("attempts retried within 4 s").isPositive();
  }

  @Test
  void a_failure_other_than_an_unreachable_server_is_not_retried() {
    AtomicInteger calls = new AtomicInteger();
    StartupRetry retry = new StartupRetry(Duration.ofMinutes(1));
    assertThatThrownBy(
            () ->
                retry.run(
                    "db",
                    () -> {
                      calls.incrementAndGet();
                      throw new IllegalStateException(
                          new SQLException("password authentication failed", "28P01"));
                    }))
        .hasMessageContaining("password authentication failed");
    assertThat(calls).hasValue(1);
    assertThat(retry.failures()).isZero();
  }

  @Test
  void unreachable_means_a_connection_state_a_server_not_accepting_yet_or_a_dead_socket() {
    assertThat(StartupRetry.unreachable(new RuntimeException(new SQLException("refused", "08001"))))
        .isTrue();
    assertThat(StartupRetry.unreachable(new SQLException("closed", "08003"))).isTrue();
    assertThat(StartupRetry.unreachable(new SQLException("in recovery", "57P03"))).isTrue();
    assertThat(StartupRetry.unreachable(new SQLException("crash shutdown", "57P02"))).isTrue();
    assertThat(StartupRetry.unreachable(new IllegalStateException(new ConnectException("no"))))
        .isTrue();
    assertThat(StartupRetry.unreachable(new SQLException("bad password", "28P01"))).isFalse();
    assertThat(StartupRetry.unreachable(new SQLException("no database", "3D000"))).isFalse();
    assertThat(StartupRetry.unreachable(new SQLException("cancelled", "57014"))).isFalse();
    assertThat(StartupRetry.unreachable(new Schema.NotCurrentException("missing V22"))).isFalse();
    assertThatThrownBy(() -> new StartupRetry(Duration.ofSeconds(-1)))
        .hasMessageContaining("PT-1S");
  }
}
