package dev.carillon.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.RenderQuotedNames;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The pooled connection to PostgreSQL and the jOOQ context on top of it. One per service process.
 *
 * <p>Services open it with {@link #forService}, which changes no schema unless {@code db.migrate}
 * asks for it: the schema and the service roles are the migrate step's business ({@link Schema}),
 * run with a user that may run DDL, while a service logs in as its own role ({@link DbRole}), which
 * may not. Tests, tools and the local stack use {@link #open}, which migrates in one go.
 */
public final class Database implements AutoCloseable {
  private final HikariDataSource dataSource;
  private final DSLContext dsl;

  private Database(HikariDataSource dataSource) {
    this.dataSource = dataSource;
    this.dsl =
        DSL.using(
            dataSource,
            SQLDialect.POSTGRES,
            new Settings()
                .withRenderQuotedNames(RenderQuotedNames.EXPLICIT_DEFAULT_UNQUOTED)
                .withExecuteLogging(false));
  }

  /**
   * Session settings for a pool whose statements all find their rows by primary key, as the
   * worker's do (claims, ends, heartbeats and definition reads each join {@code unnest(ids)} with a
   * table): plan every execution afresh and leave the planner no way but the key.
   *
   * <p>Why: the row estimates behind a plan lag the table. Statistics are refreshed by autovacuum
   * at most once a minute and say ~0 rows on a fresh table, and a cached generic plan keeps the
   * table size it saw when it was made. With the planner free to choose, an end ran as a nested
   * loop that compared every RUNNING row with every id, and claims hashed all PENDING rows or
   * scanned the whole table. A custom plan without sequential scans, hash or merge joins has one
   * cheap choice for {@code task_instance JOIN unnest(ids)}: a nested loop probing the primary key
   * once per id. Planning each execution in a warm session costs far less than the plans it rules
   * out (the measurements are in {@code docs/benchmarks.md}).
   */
  public static final String PRIMARY_KEY_PLANS =
      "SET plan_cache_mode = force_custom_plan; SET enable_seqscan = off;"
          + " SET enable_hashjoin = off; SET enable_mergejoin = off";

  /** The driver's {@code prepareThreshold}: server-side prepared from the first execution. */
  static final int PREPARE_THRESHOLD = 1;

  /**
   * Opens the pool and applies pending migrations with the settings' role prefix (tests, tools and
   * the local stack, whose user owns the schema).
   */
  public static Database open(DbSettings settings) {
    return open(settings, null);
  }

  /**
   * Like {@link #open(DbSettings)}, running {@code connectionInitSql} on every new connection;
   * tests use it to put the session in an odd time zone, proving that no code depends on it.
   */
  public static Database open(DbSettings settings, String connectionInitSql) {
    Database db = connect(settings, connectionInitSql);
    try {
      Schema.migrate(settings);
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
    return db;
  }

  /**
   * A service's pool: migrates when {@link DbSettings#migrate()} says so, and otherwise only checks
   * that the schema has every migration of this build ({@link Schema#requireCurrent}), which needs
   * nothing but read access to Flyway's history table.
   *
   * @param connectionInitSql run on every new connection, or null; the worker passes {@link
   *     #PRIMARY_KEY_PLANS}
   * @throws Schema.NotCurrentException when the schema lacks a migration (the service must not
   *     start)
   */
  public static Database forService(DbSettings settings, String connectionInitSql) {
    return forService(settings, connectionInitSql, new StartupRetry(StartupRetry.DEFAULT_LIMIT));
  }

  /**
   * {@link #forService(DbSettings, String)}, trying again while PostgreSQL cannot be reached, as
   * {@code retry} says (a service started during a database restart waits for it).
   */
  public static Database forService(
      DbSettings settings, String connectionInitSql, StartupRetry retry) {
    return retry.run(settings.maskedUrl(), () -> openForService(settings, connectionInitSql));
  }

  private static Database openForService(DbSettings settings, String connectionInitSql) {
    Database db = connect(settings, connectionInitSql);
    try {
      if (settings.migrate()) {
        Schema.migrate(settings);
      } else {
        Schema.requireCurrent(settings);
      }
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
    return db;
  }

  /**
   * Opens the pool without looking at the schema.
   *
   * <p>Every connection of the pool carries the timeouts of {@code settings} (see {@link
   * DbSettings}): the driver's connect, login and socket timeouts, and the session's {@code
   * statement_timeout} and {@code idle_in_transaction_session_timeout}. The migrations ({@link
   * Schema#migrate}) run on connections of their own without the statement and socket timeouts (a
   * migration that builds an index may rightly take longer than any service statement).
   */
  public static Database connect(DbSettings settings, String connectionInitSql) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(settings.url());
    config.setUsername(settings.user());
    config.setPassword(settings.password());
    config.setMaximumPoolSize(settings.poolSize());
    config.setConnectionTimeout(settings.connectionTimeout().toMillis());
    // The liveness check of a pooled connection before it is handed out; a frozen server must fail
    // it within the time a caller is prepared to wait for a connection at all.
    config.setValidationTimeout(
        Math.max(
            DbSettings.MIN_CONNECTION_TIMEOUT.toMillis(),
            Math.min(VALIDATION_TIMEOUT.toMillis(), settings.connectionTimeout().toMillis() / 2)));
    config.setPoolName("carillon-db");
    // Instants are written as UTC; the session zone must not matter, and tests set it to an odd
    // zone on purpose to prove that.
    config.setAutoCommit(true);
    // Every statement of the services is one fixed text (lists travel as array bind values), so a
    // server-side prepared statement from the first execution costs one Describe per statement and
    // connection, and from then on PostgreSQL neither parses nor rewrites it again and sends its
    // results in binary. The driver's default (5) ran a busy statement's first four executions on
    // each new connection as text, parsed every time. A URL that sets prepareThreshold wins.
    config.addDataSourceProperty("prepareThreshold", PREPARE_THRESHOLD);
    connectTimeouts(settings).forEach(config::addDataSourceProperty);
    config.addDataSourceProperty("socketTimeout", settings.socketTimeout().toSeconds());
    // SET rather than the driver's "options" parameter: a URL that sets options would silently
    // replace it, and these timeouts must hold whatever the URL says.
    String timeouts = sessionTimeouts(settings.statementTimeout());
    config.setConnectionInitSql(
        connectionInitSql == null ? timeouts : timeouts + "; " + connectionInitSql);
    return new Database(new HikariDataSource(config));
  }

  /** The longest a pooled connection's liveness check may take. */
  static final Duration VALIDATION_TIMEOUT = Duration.ofSeconds(2);

  /** The session settings that bound every statement and every open transaction. */
  static String sessionTimeouts(Duration statementTimeout) {
    long ms = statementTimeout.toMillis();
    return "SET statement_timeout = " + ms + "; SET idle_in_transaction_session_timeout = " + ms;
  }

  /** The driver's connect and login timeouts (whole seconds). */
  private static Map<String, Object> connectTimeouts(DbSettings settings) {
    long seconds = settings.connectTimeout().toSeconds();
    return Map.of("connectTimeout", seconds, "loginTimeout", seconds);
  }

  /**
   * Exports the pool's meters ({@code hikaricp_connections_*}: active, idle, pending, timeouts,
   * acquire and usage times) to {@code registry}. Once per database.
   */
  public void bindMetrics(MeterRegistry registry) {
    dataSource.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
  }

  /**
   * Asks PostgreSQL for a sign of life through the pool: a connection (waiting at most the pool's
   * connection timeout) that answers the driver's validity check within {@code timeout} (rounded up
   * to whole seconds). For readiness probes.
   *
   * @throws SQLException naming why when there is no answer
   */
  public void ping(Duration timeout) throws SQLException {
    int seconds = (int) Math.max(1, (timeout.toMillis() + 999) / 1000);
    try (Connection c = dataSource.getConnection()) {
      if (!c.isValid(seconds)) {
        throw new SQLException(
            "PostgreSQL did not answer a validity check within " + seconds + "s");
      }
    }
  }

  public DSLContext dsl() {
    return dsl;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  @Override
  public void close() {
    dataSource.close();
  }
}
