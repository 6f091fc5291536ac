package dev.carillon.schedctl;

import dev.carillon.store.DbSettings;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.PresenceStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.RenderQuotedNames;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * One JDBC connection for one command, and the stores on top of it.
 *
 * <p>Deliberately not {@link dev.carillon.store.Database}: that one migrates the schema on open,
 * which an operator tool must not do (an older CLI against a newer schema would fail Flyway's
 * validation, and a read-only operator account could not run {@code get}). A pool would only add
 * threads and start-up time to a process that runs a handful of statements.
 */
final class Db implements AutoCloseable {
  private final String shownUrl;
  private final Connection connection;
  private final DSLContext dsl;

  private Db(String shownUrl, Connection connection) {
    this.shownUrl = shownUrl;
    this.connection = connection;
    this.dsl =
        DSL.using(
            connection,
            SQLDialect.POSTGRES,
            new Settings()
                .withRenderQuotedNames(RenderQuotedNames.EXPLICIT_DEFAULT_UNQUOTED)
                .withExecuteLogging(false));
  }

  /**
   * Connects, waiting at most {@code timeout} for the server.
   *
   * @throws CliException (exit 1) naming PostgreSQL, the URL (password masked) and the cause
   */
  static Db open(DbSettings settings, Duration timeout) {
    String shown = settings.maskedUrl();
    Properties p = new Properties();
    if (settings.user() != null && !settings.user().isBlank()) {
      p.setProperty("user", settings.user());
    }
    if (settings.password() != null && !settings.password().isEmpty()) {
      p.setProperty("password", settings.password());
    }
    String seconds = Long.toString(Math.max(1, timeout.toSeconds()));
    p.setProperty("connectTimeout", seconds);
    p.setProperty("loginTimeout", seconds);
    // A statement may legitimately take longer than a connect (a large backfill batch), but a
    // dead network must not hang the operator's terminal forever.
    p.setProperty("socketTimeout", Long.toString(Math.max(60, timeout.toSeconds() * 6)));
    p.setProperty("ApplicationName", "schedctl");
    try {
      Connection c = new org.postgresql.Driver().connect(settings.url(), p);
      if (c == null) {
        throw CliException.badInput("db.url '" + shown + "' is not a PostgreSQL JDBC URL");
      }
      return new Db(shown, c);
    } catch (SQLException e) {
      throw CliException.unreachable(
          "cannot reach PostgreSQL at " + shown + ": " + Session.rootMessage(e), e);
    }
  }

  String shownUrl() {
    return shownUrl;
  }

  DSLContext dsl() {
    return dsl;
  }

  TaskStore tasks() {
    return new TaskStore(dsl);
  }

  WindowStore windows() {
    return new WindowStore(dsl);
  }

  OperatorStore operator() {
    return new OperatorStore(dsl);
  }

  PresenceStore presence() {
    return new PresenceStore(dsl);
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException e) {
      // Nothing is pending on a connection we are done with; closing is best effort.
    }
  }
}
