package dev.carillon.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.MeterRegistry;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.RenderQuotedNames;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The pooled connection to PostgreSQL and the jOOQ context on top of it. Migrates the schema on
 * open. One per service process.
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

  /** Opens the pool and applies pending Flyway migrations. */
  public static Database open(DbSettings settings) {
    return open(settings, null);
  }

  /**
   * Like {@link #open(DbSettings)}, running {@code connectionInitSql} on every new connection: the
   * worker passes {@link #PRIMARY_KEY_PLANS}; tests use it to put the session in an odd time zone,
   * proving that no code depends on it.
   */
  public static Database open(DbSettings settings, String connectionInitSql) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(settings.url());
    config.setUsername(settings.user());
    config.setPassword(settings.password());
    config.setMaximumPoolSize(settings.poolSize());
    config.setConnectionTimeout(settings.connectionTimeout().toMillis());
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
    if (connectionInitSql != null) {
      config.setConnectionInitSql(connectionInitSql);
    }
    HikariDataSource ds = new HikariDataSource(config);
    try {
      migrate(ds);
    } catch (RuntimeException e) {
      ds.close();
      throw e;
    }
    return new Database(ds);
  }

  static void migrate(DataSource ds) {
    Flyway.configure().dataSource(ds).locations("classpath:db/migration").load().migrate();
  }

  /**
   * Exports the pool's meters ({@code hikaricp_connections_*}: active, idle, pending, timeouts,
   * acquire and usage times) to {@code registry}. Once per database.
   */
  public void bindMetrics(MeterRegistry registry) {
    dataSource.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
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
