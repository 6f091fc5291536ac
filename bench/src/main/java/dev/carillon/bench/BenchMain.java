package dev.carillon.bench;

import dev.carillon.bench.plot.PointsFile;
import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackOptions;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;

/**
 * {@code bench/run.sh [--workload burst,steady,api|all] [--system ceiling,dbscheduler,quartz|all]
 * [--n 20000] [--rate 500] [--duration 60s] [--period 10s] [--repeats 3] [--threads 10]
 * [--poll-interval 100ms] [--grace 10s] [--lead 12s] [--api-clients 50] [--no-warmup | --warmup-n
 * N] [--durable] [--statements] [--create-ahead D] [--claim-ahead D] [--out FILE] [--points FILE]}
 *
 * <p>Starts one dev stack, runs everything, prints progress on stderr and the Markdown report on
 * stdout; with {@code --points} it also appends each measured run to a points file for {@code
 * bench/run.sh plot}. Exit code 2 for bad arguments, 1 if any run failed or was not exactly-once.
 */
public final class BenchMain {
  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    BenchOptions options;
    try {
      options = BenchOptions.parse(args, BenchRunner.knownIds());
    } catch (IllegalArgumentException e) {
      System.err.println("bench: " + e.getMessage());
      System.err.println(
          "usage: bench/run.sh [--workload burst,steady,api|all] [--system "
              + String.join("|", BenchRunner.knownIds())
              + "|all] [--n N] [--rate R] [--duration D] [--period P] [--repeats K]"
              + " [--threads T] [--poll-interval D] [--grace D] [--lead D] [--api-clients C]"
              + " [--no-warmup | --warmup-n N] [--durable] [--statements] [--create-ahead D] [--claim-ahead D] [--out FILE] [--points FILE]");
      System.exit(2);
      return;
    }
    int exit;
    try (DevStack stack =
        DevStack.start(
            DevStackOptions.defaults()
                .withDurablePostgres(options.durable())
                .withStatementStats(options.statements()))) {
      Durability.check(stack, options.durable());
      BenchRunner.Results results =
          new BenchRunner(
                  stack, options, BenchRunner.knownSystems(options), System.err, Clock.systemUTC())
              .run();
      String md =
          Report.markdown(
              results, postgresVersion(stack) + " (" + Durability.describe(stack) + ")");
      System.out.println(md);
      if (options.out().isPresent()) {
        Files.writeString(options.out().get(), md);
      }
      if (options.points().isPresent()) {
        PointsFile.append(options.points().get(), PointsFile.of(results));
      }
      exit = allExact(results) ? 0 : 1;
    }
    // Kafka and ZooKeeper leave non-daemon threads behind; the report is out, so leave now.
    System.exit(exit);
  }

  static boolean allExact(BenchRunner.Results r) {
    for (RunResult x : r.runs()) {
      if (x instanceof RunResult.Failed) {
        return false;
      }
      if (x instanceof RunResult.Burst b && (!b.check().exact() || b.endToEnd() == null)) {
        return false;
      }
      if (x instanceof RunResult.Steady s && !s.check().exact()) {
        return false;
      }
      if (x instanceof RunResult.Api a && (!a.check().exact() || a.api().failed() > 0)) {
        return false;
      }
    }
    return true;
  }

  static String postgresVersion(DevStack stack) {
    try (Connection c =
            DriverManager.getConnection(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW server_version")) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      return "?";
    }
  }
}
