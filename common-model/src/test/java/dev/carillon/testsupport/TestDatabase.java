package dev.carillon.testsupport;

import dev.carillon.devstack.DevStack;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;

/**
 * A freshly created, migrated database on the shared devstack PostgreSQL: one per test class. Every
 * session runs in {@link DevStack#POSTGRES_TIME_ZONE} while the test JVM runs in another odd zone
 * (see the surefire argLine), so code that leans on either zone fails here.
 */
public final class TestDatabase {
  private TestDatabase() {}

  public static Database fresh(String prefix) {
    DevStack stack = DevStack.shared();
    String url = stack.createDatabase(prefix);
    return Database.open(
        new DbSettings(url, stack.dbUser(), stack.dbPassword(), 24),
        DevStack.SESSION_TIME_ZONE_SQL);
  }

  /**
   * A fresh database of {@code poolSize} sessions that run {@code initSql} after the usual time
   * zone setting (a later {@code SET TIME ZONE} in it wins).
   */
  public static Database fresh(String prefix, int poolSize, String initSql) {
    DevStack stack = DevStack.shared();
    return Database.open(
        new DbSettings(stack.createDatabase(prefix), stack.dbUser(), stack.dbPassword(), poolSize),
        DevStack.SESSION_TIME_ZONE_SQL + "; " + initSql);
  }

  /**
   * A fresh database whose sessions plan every statement generically, as PostgreSQL may for a
   * prepared statement after five runs: the plan tests' worst case.
   */
  public static Database genericPlans(String prefix) {
    return fresh(prefix, 2, "SET plan_cache_mode = force_generic_plan");
  }

  public static DbSettings settings(String prefix) {
    DevStack stack = DevStack.shared();
    return new DbSettings(stack.createDatabase(prefix), stack.dbUser(), stack.dbPassword(), 8);
  }
}
