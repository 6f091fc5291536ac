package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.carillon.devstack.DevStack;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/** Every pooled session carries the statement and idle-transaction timeouts of its settings. */
class DatabaseTimeoutsTest {

  private static DbSettings settings(Duration statementTimeout) {
    DevStack stack = DevStack.shared();
    return new DbSettings(
            stack.createDatabase("db_timeouts"), stack.dbUser(), stack.dbPassword(), 2)
        .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(3), statementTimeout);
  }

  @Test
  void a_statement_longer_than_the_statement_timeout_is_cancelled_by_the_server() {
    try (Database db = Database.open(settings(Duration.ofMillis(300)))) {
      assertThat(db.dsl().fetchValue("show statement_timeout")).isEqualTo("300ms");
      assertThat(db.dsl().fetchValue("show idle_in_transaction_session_timeout"))
          .isEqualTo("300ms");

      assertThatThrownBy(() -> db.dsl().execute("select pg_sleep(2)"))
          .isInstanceOf(DataAccessException.class)
          .satisfies(
              e ->
                  assertThat(((DataAccessException) e).sqlState())
                      .as("query_canceled")
                      .isEqualTo("57014"));
      // The connection is still good: only the statement was cancelled.
      assertThat(db.dsl().fetchValue(DSL.inline(1))).isEqualTo(1);
    }
  }

  @Test
  void the_callers_own_session_settings_run_after_the_timeouts() {
    try (Database db =
        Database.open(settings(Duration.ofSeconds(1)), "SET statement_timeout = 1234")) {
      assertThat(db.dsl().fetchValue("show statement_timeout")).isEqualTo("1234ms");
    }
  }

  @Test
  void a_socket_timeout_not_above_the_statement_timeout_is_refused_naming_both_keys() {
    assertThatThrownBy(
            () ->
                new DbSettings("jdbc:postgresql://h/d", "u", "p", 1)
                    .withTimeouts(
                        Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("db.socket-timeout")
        .hasMessageContaining("db.statement-timeout");
    assertThatThrownBy(
            () ->
                new DbSettings("jdbc:postgresql://h/d", "u", "p", 1)
                    .withTimeouts(
                        Duration.ofMillis(1500), Duration.ofSeconds(5), Duration.ofSeconds(1)))
        .hasMessageContaining("db.connect-timeout")
        .hasMessageContaining("whole seconds");
  }

  /**
   * A server that accepts connections and never answers is what a stopped (SIGSTOPped) or wedged
   * PostgreSQL looks like to a client: the kernel completes the TCP handshake, the login never
   * does. The migrate step and every service's schema check must give up after {@code
   * db.connect-timeout} and say so, not wait forever.
   */
  @Test
  void the_schema_check_and_the_migrate_step_give_up_on_a_server_that_never_answers()
      throws IOException {
    List<Socket> accepted = new ArrayList<>();
    try (ServerSocket mute = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(mute.accept());
                  }
                } catch (IOException closed) {
                  // the test is over
                }
              },
              "mute-server");
      acceptor.setDaemon(true);
      acceptor.start();
      DbSettings mutePg =
          new DbSettings(
                  "jdbc:postgresql://127.0.0.1:" + mute.getLocalPort() + "/carillon", "u", "p", 1)
              .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(2));

      // Without the login timeout each call below waits as long as the server stays mute.
      assertTimeoutPreemptively(
          Duration.ofSeconds(30),
          () -> {
            assertThatThrownBy(() -> Schema.requireCurrent(mutePg))
                .as("the services' schema check")
                .hasStackTraceContaining("Connection attempt timed out");
            assertThatThrownBy(() -> Schema.migrate(mutePg))
                .as("the migrate step")
                .hasStackTraceContaining("Connection attempt timed out");
          });
      assertThat(accepted).as("connections the mute server accepted").isNotEmpty();
    } finally {
      for (Socket s : accepted) {
        s.close();
      }
    }
  }
}
