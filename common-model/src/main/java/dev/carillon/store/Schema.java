package dev.carillon.store;

import dev.carillon.model.CarillonException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.MigrationState;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carillon's schema: its Flyway migrations ({@code classpath:db/migration}), applied by the migrate
 * step with a user that may run DDL, and the check every service runs at start instead when it is
 * not told to migrate ({@code db.migrate}).
 *
 * <p>The repeatable migration {@code R__service_roles.sql}, which Flyway runs after every versioned
 * one and again whenever it changes, creates the service roles ({@link DbRole}) and sets their
 * grants; the role names start with a prefix ({@link #DEFAULT_ROLE_PREFIX} unless the deployment
 * chooses another), passed to the SQL as the Flyway placeholder {@code rolePrefix}. Choose it once:
 * a later migration grants to the roles of the prefix it is given.
 */
public final class Schema {
  /** The prefix of the service roles unless {@code db.role-prefix} says otherwise. */
  public static final String DEFAULT_ROLE_PREFIX = "carillon_";

  /** What a role prefix may hold: it becomes part of an SQL identifier. */
  public static final Pattern ROLE_PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,39}");

  /** Raised when the schema is behind this build or a migration failed; the service stops. */
  public static final class NotCurrentException extends CarillonException {
    private static final long serialVersionUID = 1L;

    NotCurrentException(String message) {
      super(message);
    }
  }

  private static final Logger log = LoggerFactory.getLogger(Schema.class);

  private Schema() {}

  /**
   * Applies every pending migration, creating the service roles of the settings' role prefix if
   * they are missing. Needs a user that owns the schema (and CREATEROLE, unless the roles exist).
   * Concurrent calls are safe: Flyway holds an advisory lock while it migrates.
   *
   * @return how many migrations were applied
   */
  public static int migrate(DbSettings settings) {
    return flyway(settings).migrate().migrationsExecuted;
  }

  /**
   * Checks that every migration of this build has been applied, without changing anything (the
   * history table is only read). A database that is ahead of this build is accepted: during a
   * rolling upgrade, the migrate step of the new version runs while old services still serve. So is
   * a repeatable migration (the roles and grants) that ran in another form, with a WARN line: it
   * ran, and what it sets is the migrate step's business.
   *
   * @throws NotCurrentException naming the schema version, the versions missing and the step that
   *     applies them
   */
  public static void requireCurrent(DbSettings settings) {
    MigrationInfoService info = flyway(settings).info();
    for (MigrationInfo m : info.all()) {
      if (m.getState() == MigrationState.FAILED) {
        throw new NotCurrentException(
            "migration " + name(m) + " failed; repair the database and run the migrate step again");
      }
    }
    List<MigrationInfo> missing = new ArrayList<>();
    for (MigrationInfo m : info.pending()) {
      if (m.getVersion() == null && applied(info, m.getDescription())) {
        // A repeatable migration (the roles and grants) that ran in another form: another build's
        // migrate step (a rolling upgrade) or another db.role-prefix. The service can work; the
        // grants are the migrate step's to set.
        log.warn(
            "The database's {} differ from this build's (another build's migrate step, or a"
                + " db.role-prefix other than '{}'); run this build's migrate step if they should"
                + " change",
            m.getDescription(),
            settings.rolePrefix());
      } else {
        missing.add(m);
      }
    }
    if (!missing.isEmpty()) {
      String at =
          Arrays.stream(info.applied())
              .map(MigrationInfo::getVersion)
              .filter(Objects::nonNull)
              .max(Comparator.naturalOrder())
              .map(Object::toString)
              .orElse("none (empty)");
      throw new NotCurrentException(
          "the database schema is at version "
              + at
              + " but this build needs "
              + missing.stream().map(Schema::name).collect(Collectors.joining(", "))
              + " as well: run the migrate step first (java -jar <service>.jar migrate, the"
              + " carillon-migrate Job, or compose's migrate service), or set db.migrate=true to"
              + " let this service migrate with its own user");
    }
  }

  private static boolean applied(MigrationInfoService info, String description) {
    return Arrays.stream(info.applied())
        .anyMatch(a -> a.getVersion() == null && description.equals(a.getDescription()));
  }

  /** A migration's version, or its description for a repeatable one (which has no version). */
  private static String name(MigrationInfo m) {
    return m.getVersion() == null
        ? m.getDescription() + " (repeatable)"
        : m.getVersion() + " (" + m.getDescription() + ")";
  }

  /**
   * Lets {@code role} log in with {@code password}. The driver hashes the password on the client
   * (SCRAM-SHA-256 unless the server's {@code password_encryption} says otherwise) and sends only
   * the verifier, so the password appears in no statement text and no server log.
   *
   * @throws IllegalStateException naming the role when PostgreSQL refuses (e.g. no CREATEROLE)
   */
  public static void enableLogin(DataSource dataSource, String role, String password) {
    if (password == null || password.isEmpty()) {
      throw new IllegalArgumentException("the password of role " + role + " is empty");
    }
    try (Connection c = dataSource.getConnection()) {
      DSL.using(c, SQLDialect.POSTGRES).execute("ALTER ROLE {0} LOGIN", DSL.name(role));
      c.unwrap(PGConnection.class).alterUserPassword(role, password.toCharArray(), null);
    } catch (SQLException | org.jooq.exception.DataAccessException e) {
      throw new IllegalStateException("cannot let role " + role + " log in: " + e.getMessage(), e);
    }
  }

  /**
   * Flyway on connections of its own (it holds one for its lock and uses another to migrate), so
   * that a service's pool, however small, is never the one it waits for. They get the connect and
   * login timeouts of {@code db.connect-timeout} (the driver's login timeout is otherwise
   * unbounded, so a server that accepts connections but does not answer, a stopped one, would hold
   * a starting service forever), but no socket or statement timeout: a migration may run long on
   * purpose.
   */
  private static Flyway flyway(DbSettings settings) {
    String seconds = Long.toString(Math.max(1, settings.connectTimeout().toSeconds()));
    return Flyway.configure()
        .dataSource(settings.url(), settings.user(), settings.password())
        .jdbcProperties(Map.of("connectTimeout", seconds, "loginTimeout", seconds))
        .connectRetries(0)
        .locations("classpath:db/migration")
        .placeholders(Map.of("rolePrefix", settings.rolePrefix()))
        .load();
  }
}
