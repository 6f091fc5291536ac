package dev.carillon.bench;

import dev.carillon.devstack.DevStack;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The bench's PostgreSQL durability. The dev stack runs with {@code synchronous_commit} and {@code
 * full_page_writes} off (a commit does not wait for its WAL flush; a page's first change after a
 * checkpoint is not logged whole), which is fine for tests and far from production; {@code
 * --durable} starts it with both on ({@code DevStackOptions.withDurablePostgres}). Every system
 * runs in a database of its own on that one server, so every system runs with the same settings.
 * {@link #check} reads them back from the server before any run, so a report never claims settings
 * the server did not run with.
 */
final class Durability {
  private Durability() {}

  /**
   * Checks that the server runs with both settings on ({@code durable}) or both off.
   *
   * @throws IllegalStateException naming what runs and what was asked for
   */
  static void check(DevStack stack, boolean durable) throws SQLException {
    String value = durable ? "on" : "off";
    String expected = "synchronous_commit=" + value + ", full_page_writes=" + value;
    String seen = settings(stack);
    if (!seen.equals(expected)) {
      throw new IllegalStateException(
          "PostgreSQL runs with " + seen + ", but the bench asked for " + expected);
    }
  }

  /** The settings in force, read from a new session, e.g. {@code synchronous_commit=on, ...}. */
  static String describe(DevStack stack) {
    try {
      return settings(stack) + ", max_connections=" + show(stack, "max_connections");
    } catch (SQLException e) {
      return "settings unknown: " + e.getMessage();
    }
  }

  private static String settings(DevStack stack) throws SQLException {
    return "synchronous_commit="
        + show(stack, "synchronous_commit")
        + ", full_page_writes="
        + show(stack, "full_page_writes");
  }

  private static String show(DevStack stack, String setting) throws SQLException {
    try (Connection c =
            DriverManager.getConnection(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
        Statement s = c.createStatement()) {
      s.setQueryTimeout(30);
      // A constant name, no input: SHOW takes no bind values.
      try (ResultSet rs = s.executeQuery("SHOW " + setting)) {
        rs.next();
        return rs.getString(1);
      }
    }
  }
}
