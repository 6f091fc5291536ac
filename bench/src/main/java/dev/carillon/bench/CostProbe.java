package dev.carillon.bench;

import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.KafkaSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.common.Node;

/**
 * Reads what a run costs the dev stack: WAL position, the PostgreSQL server processes' CPU time,
 * the run database's {@code pg_stat_database} counters and the Kafka broker's log sizes, before and
 * after the run ({@link Span}). The bench runs one system at a time, so the cluster-wide figures
 * (WAL, CPU, Kafka) are the run's. A figure that cannot be read becomes empty ({@code ?} in the
 * report) and the reason is printed once per figure; the run goes on.
 */
public final class CostProbe {
  /**
   * How long after a run its database counters are read. PostgreSQL 15 publishes a backend's
   * counters at the end of a transaction at most once a second, and the pending ones of a backend
   * that went idle 10 s later (PGSTAT_IDLE_INTERVAL); pg_stat_force_next_flush() only reaches the
   * calling session. The run's pools stay open meanwhile, so their idle polling is counted too.
   */
  static final Duration STATS_PUBLISHED = Duration.ofSeconds(11);

  /** Linux's USER_HZ on every common architecture; used only when getconf cannot be asked. */
  static final long ASSUMED_TICKS_PER_SECOND = 100;

  /**
   * The WAL's insert position in bytes (a numeric). The insert position rather than {@code
   * pg_current_wal_lsn()}: with synchronous_commit off the written position trails it by up to
   * wal_writer_delay, which would shift WAL from one measured span to the next.
   */
  static final String WAL_INSERT_POSITION =
      "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')";

  private static final int TIMEOUT_SECONDS = 10;
  private static final Path PROC = Path.of("/proc");

  private final boolean enabled;
  private final String adminUrl;
  private final String user;
  private final String password;
  private final LongSupplier postmasterPid;
  private final String kafkaBootstrap;
  private final PrintStream warnings;
  private final Set<String> warned = ConcurrentHashMap.newKeySet();
  private volatile long ticksPerSecond;

  private CostProbe(
      boolean enabled,
      String adminUrl,
      String user,
      String password,
      LongSupplier postmasterPid,
      String kafkaBootstrap,
      PrintStream warnings) {
    this.enabled = enabled;
    this.adminUrl = adminUrl;
    this.user = user;
    this.password = password;
    this.postmasterPid = postmasterPid;
    this.kafkaBootstrap = kafkaBootstrap;
    this.warnings = warnings;
  }

  /** Measures runs on {@code stack}; reasons for unread figures go to {@code warnings}. */
  public static CostProbe of(DevStack stack, PrintStream warnings) {
    return of(
        stack.jdbcUrl(),
        stack.dbUser(),
        stack.dbPassword(),
        () -> stack.postgres().postmasterPid(),
        stack.kafkaBootstrap(),
        warnings);
  }

  /**
   * Measures runs on the server at {@code adminUrl} (its maintenance database) whose postmaster
   * {@code postmasterPid} names, and on the broker at {@code kafkaBootstrap}.
   */
  static CostProbe of(
      String adminUrl,
      String user,
      String password,
      LongSupplier postmasterPid,
      String kafkaBootstrap,
      PrintStream warnings) {
    return new CostProbe(true, adminUrl, user, password, postmasterPid, kafkaBootstrap, warnings);
  }

  /** Measures nothing: every run's cost is {@link Cost#unmeasured} (the warm-up). */
  public static CostProbe none() {
    return new CostProbe(false, null, null, null, () -> 0, null, System.err);
  }

  /** Takes the "before" snapshot of a run on {@code ctx}'s database. */
  public Span start(RunContext ctx) {
    return new Span(ctx.jdbcUrl(), ctx.clock());
  }

  /** One table's cumulative tuple counters ({@code pg_stat_user_tables}). */
  record TableTuples(String table, long inserted, long updated, long hotUpdated, long deleted) {}

  /**
   * The line that splits a burst's WAL and PostgreSQL CPU at its due instant: the setup before it
   * (definitions applied, executions scheduled, cursors started), the run after it.
   */
  static String split(
      String database, Cost setup, Cost run, OptionalLong jvmSetupNanos, OptionalLong jvmRunNanos) {
    return "cost: "
        + database
        + " per instance, setup before the due instant: "
        + figures(setup, jvmSetupNanos)
        + "; run from it: "
        + figures(run, jvmRunNanos);
  }

  /**
   * @param jvmNanos this JVM's CPU over the same span: the bench runs the system under test, its
   *     Kafka broker and ZooKeeper in-process, so with PostgreSQL's it is all the CPU the run took
   */
  private static String figures(Cost c, OptionalLong jvmNanos) {
    OptionalDouble wal = c.perUnit(c.walBytes());
    OptionalDouble cpuMillis = c.perUnit(c.pgCpuMillis());
    OptionalDouble jvmMicros = c.perUnit(jvmNanos);
    return "WAL "
        + (wal.isPresent() ? String.format("%,.0f B", wal.getAsDouble()) : "?")
        + ", PostgreSQL CPU "
        + (cpuMillis.isPresent() ? String.format("%,.0f µs", cpuMillis.getAsDouble() * 1000) : "?")
        + ", this JVM's CPU "
        + (jvmMicros.isPresent() ? String.format("%,.0f µs", jvmMicros.getAsDouble() / 1000) : "?");
  }

  /** This JVM's CPU time so far (all its threads), or empty where the JVM does not say. */
  private static OptionalLong jvmCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      long nanos = os.getProcessCpuTime();
      return nanos < 0 ? OptionalLong.empty() : OptionalLong.of(nanos);
    }
    return OptionalLong.empty();
  }

  /**
   * The line that says which tables a run's tuples went to, per unit, the largest first: the run's
   * database is created for it, so its counters are the run's (setup included).
   */
  static String byTable(String database, List<TableTuples> tables, long units) {
    StringBuilder b =
        new StringBuilder("cost: ").append(database).append(" tuples per instance by table:");
    if (tables.isEmpty()) {
      return b.append(" none").toString();
    }
    String sep = " ";
    for (TableTuples t : tables) {
      b.append(sep)
          .append(t.table())
          .append(String.format(" %.2f ins", (double) t.inserted() / units))
          .append(
              String.format(
                  " %.2f upd (%.2f HOT)",
                  (double) t.updated() / units, (double) t.hotUpdated() / units))
          .append(String.format(" %.2f del", (double) t.deleted() / units));
      sep = "; ";
    }
    return b.toString();
  }

  /** One statement's execution time over a run ({@code pg_stat_statements}). */
  record StatementTime(String query, long calls, double totalMillis) {}

  /**
   * The lines that say which statements PostgreSQL spent its time on, per instance, the most first,
   * with each statement's calls over the run (one call may handle many instances). Execution time
   * is wall time inside the executor: it leaves out planning, commits and the WAL writer, and
   * counts lock waits and time waiting for a core, so it is a ranking, not CPU.
   */
  static List<String> byStatement(String database, List<StatementTime> statements, long units) {
    List<String> lines = new ArrayList<>();
    lines.add(
        "cost: "
            + database
            + " PostgreSQL execution time per instance by statement, run from the due instant"
            + " (pg_stat_statements):"
            + (statements.isEmpty() ? " none" : ""));
    for (StatementTime t : statements) {
      String query = t.query().replaceAll("\\s+", " ").trim();
      lines.add(
          String.format(
              "cost:   %,.1f µs in %,d calls: %s",
              t.totalMillis() * 1000 / units,
              t.calls(),
              query.length() > 300 ? query.substring(0, 300) + "..." : query));
    }
    return lines;
  }

  /** The database a JDBC URL names: what follows the last {@code /}, without parameters. */
  static String databaseName(String jdbcUrl) {
    String tail = jdbcUrl.substring(jdbcUrl.lastIndexOf('/') + 1);
    int q = tail.indexOf('?');
    return q < 0 ? tail : tail.substring(0, q);
  }

  /**
   * One run's measurement: created just before the run, {@link #end} just after it. Holds one
   * connection to the server's maintenance database and one Kafka admin client for both snapshots.
   */
  public final class Span implements AutoCloseable {
    private final String jdbcUrl;
    private final String database;
    private final Clock clock;
    private Connection pg;
    private Admin kafka;
    private final Cost.Snapshot before;

    // WAL and CPU at the burst's due instant, or null (steady runs, or not marked).
    private Cost.Snapshot atDue;
    private OptionalLong jvmBefore = OptionalLong.empty();
    private OptionalLong jvmAtDue = OptionalLong.empty();
    private Map<Long, ThreadCpu.Sample> threadsAtDue = Map.of();
    // Whether pg_stat_statements was reset at the due instant (the stack loads it on request).
    private boolean statementsFromDue;

    private Span(String jdbcUrl, Clock clock) {
      this.jdbcUrl = jdbcUrl;
      this.database = databaseName(jdbcUrl);
      this.clock = clock;
      if (!enabled) {
        before = Cost.Snapshot.NOTHING;
        return;
      }
      pg = connect();
      kafka = kafkaAdmin();
      jvmBefore = jvmCpuNanos();
      before = new Cost.Snapshot(wal(), cpu(), db(), kafkaBytes());
    }

    /**
     * Marks a burst's due instant: {@link #end} then also prints the WAL and PostgreSQL CPU before
     * it (the setup) and after it (the run) apart. Only those two: they are read at once, while the
     * database's counters are published up to seconds late and would fall on either side.
     */
    public void due() {
      if (enabled) {
        jvmAtDue = jvmCpuNanos();
        threadsAtDue = ThreadCpu.snapshot();
        statementsFromDue = resetStatements();
        atDue = new Cost.Snapshot(wal(), cpu(), Optional.empty(), OptionalLong.empty());
      }
    }

    /**
     * Reads the figures at the end of the run (WAL, CPU, Kafka at once; the database counters
     * {@link #STATS_PUBLISHED} later) and returns the difference.
     *
     * @param units the run's instances or planned fires
     */
    public Cost end(long units) throws InterruptedException {
      if (!enabled) {
        return Cost.unmeasured(units);
      }
      Instant ended = clock.instant();
      OptionalLong wal = wal();
      OptionalLong cpu = cpu();
      OptionalLong jvmAfter = jvmCpuNanos();
      Map<Long, ThreadCpu.Sample> threadsAfter = atDue == null ? Map.of() : ThreadCpu.snapshot();
      OptionalLong bytes = kafkaBytes();
      // Without a connection there are no counters to wait for.
      Instant published = pg == null ? ended : ended.plus(STATS_PUBLISHED);
      for (Instant now = clock.instant(); now.isBefore(published); now = clock.instant()) {
        LockSupport.parkNanos(Duration.between(now, published).toNanos());
        if (Thread.interrupted()) {
          throw new InterruptedException("interrupted while PostgreSQL publishes its counters");
        }
      }
      Cost.Snapshot after = new Cost.Snapshot(wal, cpu, db(), bytes);
      backwards("WAL bytes", before.walPosition(), after.walPosition());
      backwards("PostgreSQL CPU", before.cpuTicks(), after.cpuTicks());
      backwards("Kafka bytes", before.kafkaBytes(), after.kafkaBytes());
      if (before.db().isPresent() && after.db().isPresent()) {
        backwards(
            "database counters",
            OptionalLong.of(before.db().get().commits()),
            OptionalLong.of(after.db().get().commits()));
      }
      if (atDue != null) {
        warnings.println(
            split(
                database,
                Cost.between(before, atDue, units, ticksPerSecond()),
                Cost.between(atDue, after, units, ticksPerSecond()),
                Cost.delta(jvmBefore, jvmAtDue),
                Cost.delta(jvmAtDue, jvmAfter)));
        warnings.println(
            ThreadCpu.line(database, ThreadCpu.byGroup(threadsAtDue, threadsAfter), units, 15));
      }
      tables().ifPresent(t -> warnings.println(byTable(database, t, units)));
      if (statementsFromDue) {
        statements().ifPresent(t -> byStatement(database, t, units).forEach(warnings::println));
      }
      return Cost.between(before, after, units, ticksPerSecond());
    }

    /**
     * The run database's tables with any tuple written, the most written first; empty when the
     * server could not be reached at the start (that was said already) or the read fails (said
     * once).
     */
    private Optional<List<TableTuples>> tables() {
      if (pg == null) {
        return Optional.empty();
      }
      try (Connection c = DriverManager.getConnection(jdbcUrl, connectionProperties());
          PreparedStatement s =
              c.prepareStatement(
                  "SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del"
                      + " FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd + n_tup_del > 0"
                      + " ORDER BY n_tup_ins + n_tup_upd + n_tup_del DESC, relname");
          ResultSet rs = query(s)) {
        List<TableTuples> out = new ArrayList<>();
        while (rs.next()) {
          out.add(
              new TableTuples(
                  rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5)));
        }
        return Optional.of(out);
      } catch (SQLException e) {
        warn("tuples by table", "cannot read pg_stat_user_tables: " + e.getMessage());
        return Optional.empty();
      }
    }

    /** {@link Cost#between} makes a figure that went backwards unknown; say so. */
    private void backwards(String figure, OptionalLong before, OptionalLong after) {
      if (before.isPresent() && after.isPresent() && after.getAsLong() < before.getAsLong()) {
        warn(
            figure,
            "it went backwards in a run on "
                + database
                + ", from "
                + before.getAsLong()
                + " to "
                + after.getAsLong());
      }
    }

    @Override
    public void close() {
      if (kafka != null) {
        kafka.close(Duration.ofSeconds(TIMEOUT_SECONDS));
        kafka = null;
      }
      if (pg != null) {
        try {
          pg.close();
        } catch (SQLException e) {
          // Only the probe's own session; nothing measured depends on closing it cleanly.
        }
        pg = null;
      }
    }

    /**
     * Starts {@code pg_stat_statements} afresh when the server loads it; false when it does not
     * (not asked for: nothing said) or it cannot be reset (said).
     */
    private boolean resetStatements() {
      if (pg == null) {
        return false;
      }
      try (PreparedStatement loaded = pg.prepareStatement("SHOW shared_preload_libraries");
          ResultSet rs = query(loaded)) {
        if (!rs.next() || !rs.getString(1).contains("pg_stat_statements")) {
          return false;
        }
      } catch (SQLException e) {
        warn("statements", "cannot read shared_preload_libraries: " + e.getMessage());
        return false;
      }
      try (PreparedStatement create =
              pg.prepareStatement("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
          PreparedStatement reset = pg.prepareStatement("SELECT pg_stat_statements_reset()")) {
        create.setQueryTimeout(TIMEOUT_SECONDS);
        create.execute();
        query(reset).close();
        return true;
      } catch (SQLException e) {
        warn("statements", "cannot reset pg_stat_statements: " + e.getMessage());
        return false;
      }
    }

    /** The run database's statements that took the most execution time since the due instant. */
    private Optional<List<StatementTime>> statements() {
      try (PreparedStatement s =
          pg.prepareStatement(
              "SELECT query, calls, total_exec_time FROM pg_stat_statements p"
                  + " JOIN pg_database d ON d.oid = p.dbid WHERE d.datname = ?"
                  + " ORDER BY total_exec_time DESC LIMIT 15")) {
        s.setString(1, database);
        try (ResultSet rs = query(s)) {
          List<StatementTime> out = new ArrayList<>();
          while (rs.next()) {
            out.add(new StatementTime(rs.getString(1), rs.getLong(2), rs.getDouble(3)));
          }
          return Optional.of(out);
        }
      } catch (SQLException e) {
        warn("statements", "cannot read pg_stat_statements: " + e.getMessage());
        return Optional.empty();
      }
    }

    private OptionalLong wal() {
      if (pg == null) {
        return OptionalLong.empty();
      }
      try (PreparedStatement s = pg.prepareStatement(WAL_INSERT_POSITION);
          ResultSet rs = query(s)) {
        rs.next();
        BigDecimal bytes = rs.getBigDecimal(1);
        return OptionalLong.of(bytes.longValueExact());
      } catch (SQLException | ArithmeticException e) {
        warn("WAL bytes", "cannot read the WAL position: " + e.getMessage());
        return OptionalLong.empty();
      }
    }

    private Optional<Cost.DbCounters> db() {
      if (pg == null) {
        return Optional.empty();
      }
      try (PreparedStatement s =
          pg.prepareStatement(
              "SELECT xact_commit, tup_inserted, tup_updated, tup_deleted"
                  + " FROM pg_stat_database WHERE datname = ?")) {
        s.setString(1, database);
        try (ResultSet rs = query(s)) {
          if (!rs.next()) {
            warn("database counters", "pg_stat_database has no row for " + database);
            return Optional.empty();
          }
          return Optional.of(
              new Cost.DbCounters(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
        }
      } catch (SQLException e) {
        warn("database counters", "cannot read pg_stat_database: " + e.getMessage());
        return Optional.empty();
      }
    }

    private OptionalLong kafkaBytes() {
      if (kafka == null) {
        return OptionalLong.empty();
      }
      try {
        List<Integer> brokers =
            kafka.describeCluster().nodes().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).stream()
                .map(Node::id)
                .toList();
        Map<Integer, Map<String, LogDirDescription>> dirs =
            kafka.describeLogDirs(brokers).allDescriptions().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        long sum = 0;
        for (Map<String, LogDirDescription> perBroker : dirs.values()) {
          for (LogDirDescription d : perBroker.values()) {
            for (ReplicaInfo r : d.replicaInfos().values()) {
              sum += r.size();
            }
          }
        }
        return OptionalLong.of(sum);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        warn("Kafka bytes", "interrupted while describing the broker's log directories");
        return OptionalLong.empty();
      } catch (ExecutionException | TimeoutException | RuntimeException e) {
        warn("Kafka bytes", "cannot describe the broker's log directories: " + e);
        return OptionalLong.empty();
      }
    }
  }

  private Properties connectionProperties() {
    Properties p = new Properties();
    p.setProperty("user", user);
    p.setProperty("password", password);
    p.setProperty("connectTimeout", Integer.toString(TIMEOUT_SECONDS));
    p.setProperty("loginTimeout", Integer.toString(TIMEOUT_SECONDS));
    p.setProperty("socketTimeout", Integer.toString(3 * TIMEOUT_SECONDS));
    p.setProperty("ApplicationName", "bench-cost-probe");
    return p;
  }

  private Connection connect() {
    Properties p = connectionProperties();
    try {
      Connection c = DriverManager.getConnection(adminUrl, p);
      c.setAutoCommit(true);
      return c;
    } catch (SQLException e) {
      String why = "cannot connect to PostgreSQL: " + e.getMessage();
      warn("WAL bytes", why);
      warn("database counters", why);
      return null;
    }
  }

  private Admin kafkaAdmin() {
    try {
      Map<String, Object> props = new HashMap<>(KafkaSettings.of(kafkaBootstrap).adminProps());
      props.put("request.timeout.ms", TIMEOUT_SECONDS * 1000);
      props.put("default.api.timeout.ms", TIMEOUT_SECONDS * 1000);
      return Admin.create(props);
    } catch (RuntimeException e) {
      warn("Kafka bytes", "cannot create a Kafka admin client: " + e);
      return null;
    }
  }

  /** Each statement is its own transaction (autocommit), so every read sees fresh statistics. */
  private static ResultSet query(PreparedStatement s) throws SQLException {
    s.setQueryTimeout(TIMEOUT_SECONDS);
    return s.executeQuery();
  }

  /** The server processes' CPU ticks ({@link #serverTicks}). */
  private OptionalLong cpu() {
    long pid;
    try {
      pid = postmasterPid.getAsLong();
    } catch (RuntimeException e) {
      warn("PostgreSQL CPU", "cannot find the postmaster: " + e.getMessage());
      return OptionalLong.empty();
    }
    try {
      long ticks = serverTicks(pid);
      if (ticks < 0) {
        ProcStat p = stat(pid);
        warn(
            "PostgreSQL CPU",
            "process "
                + pid
                + " from postmaster.pid is "
                + (p == null ? "gone" : "\"" + p.comm() + "\", not postgres"));
        return OptionalLong.empty();
      }
      return OptionalLong.of(ticks);
    } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
      warn("PostgreSQL CPU", "cannot read /proc: " + e.getMessage());
      return OptionalLong.empty();
    }
  }

  /**
   * The CPU ticks of the PostgreSQL server whose postmaster is {@code pid}: its own and its living
   * children's, each with the children they reaped ({@link ProcStat#treeTicks}). The postmaster is
   * read before and after its children, and the read is repeated if it reaped a child in between
   * (that child's time would be counted twice or not at all).
   *
   * @return the ticks, or -1 when {@code pid} is not a running {@code postgres} process
   */
  static long serverTicks(long pid) throws IOException {
    long ticks = -1;
    for (int attempt = 0; attempt < 3; attempt++) {
      ProcStat first = stat(pid);
      if (first == null || !first.comm().equals("postgres")) {
        return -1;
      }
      List<ProcStat> children = children(pid);
      ProcStat last = stat(pid);
      if (last == null) {
        return -1;
      }
      ticks = ProcStat.treeTicks(last, children);
      if (first.cutime() + first.cstime() == last.cutime() + last.cstime()) {
        break;
      }
    }
    return ticks;
  }

  private static List<ProcStat> children(long parent) throws IOException {
    List<ProcStat> found = new ArrayList<>();
    try (Stream<Path> entries = Files.list(PROC)) {
      for (Path p : (Iterable<Path>) entries::iterator) {
        String name = p.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        ProcStat s = stat(Long.parseLong(name));
        if (s != null && s.ppid() == parent) {
          found.add(s);
        }
      }
    }
    return found;
  }

  /** The process's stat line, or null if it has exited. */
  private static ProcStat stat(long pid) throws IOException {
    try {
      return ProcStat.parse(
          Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8)
              .strip());
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      // A process that exits while it is read makes the read fail with ESRCH.
      if (!Files.exists(PROC.resolve(Long.toString(pid)))) {
        return null;
      }
      throw e;
    }
  }

  /** {@code getconf CLK_TCK}, asked once; {@value #ASSUMED_TICKS_PER_SECOND} if it cannot be. */
  private long ticksPerSecond() throws InterruptedException {
    if (ticksPerSecond > 0) {
      return ticksPerSecond;
    }
    long hz = ASSUMED_TICKS_PER_SECOND;
    try {
      hz = askTicksPerSecond();
    } catch (IOException | NumberFormatException e) {
      if (warned.add("clock ticks")) {
        warnings.println(
            "cost: "
                + e.getMessage()
                + "; PostgreSQL CPU assumes "
                + ASSUMED_TICKS_PER_SECOND
                + " clock ticks per second");
      }
    }
    ticksPerSecond = hz;
    return hz;
  }

  /** {@code getconf CLK_TCK}: the unit of {@link ProcStat}'s times. */
  static long askTicksPerSecond() throws IOException, InterruptedException {
    Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
    if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("getconf CLK_TCK did not answer in " + TIMEOUT_SECONDS + " s");
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (p.exitValue() != 0) {
      throw new IOException("getconf CLK_TCK exited with " + p.exitValue() + ": " + out);
    }
    try {
      return Long.parseLong(out);
    } catch (NumberFormatException e) {
      throw new IOException("getconf CLK_TCK said \"" + out + "\", not a number", e);
    }
  }

  private void warn(String figure, String why) {
    if (warned.add(figure)) {
      warnings.println("cost: " + figure + " not measured (shown as ?): " + why);
    }
  }
}
