package dev.carillon.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.carillon.devstack.DevStack;

/** The one way every system gets its connections, so pool settings cannot differ by system. */
public final class Pools {
  private Pools() {}

  /** A fixed-size HikariCP pool ({@code poolSize} connections, all opened up front). */
  public static HikariDataSource open(RunContext ctx, String name) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(ctx.jdbcUrl());
    config.setUsername(ctx.user());
    config.setPassword(ctx.password());
    config.setPoolName(name + "-" + ctx.runId());
    config.setMaximumPoolSize(ctx.poolSize());
    // A fixed pool: no system pays for opening connections inside the measured window.
    config.setMinimumIdle(ctx.poolSize());
    config.setAutoCommit(true);
    // Every system must be right in any session zone; the dev stack's odd zone proves it.
    config.setConnectionInitSql(DevStack.SESSION_TIME_ZONE_SQL);
    return new HikariDataSource(config);
  }
}
