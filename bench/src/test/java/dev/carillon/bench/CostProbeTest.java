package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.devstack.DevStackException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A probe that can read nothing: the run goes on, every figure is unknown, stderr says why once.
 */
class CostProbeTest {
  private static RunContext context() {
    return new RunContext(
        "jdbc:postgresql://127.0.0.1:1/bench_x_burst_1",
        "postgres",
        "postgres",
        1,
        1,
        Duration.ofMillis(100),
        new Recorder(),
        Clock.systemUTC(),
        "x1",
        "x",
        "x",
        Duration.ZERO,
        Duration.ZERO);
  }

  @Test
  @Timeout(60)
  void a_probe_that_can_read_nothing_gives_unknown_figures_and_says_why_once_per_figure()
      throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream warnings = new PrintStream(err, true, StandardCharsets.UTF_8);
    CostProbe probe =
        CostProbe.of(
            // Nothing listens on port 1; "x" is not a Kafka bootstrap address.
            "jdbc:postgresql://127.0.0.1:1/postgres",
            "postgres",
            "postgres",
            () -> {
              throw new DevStackException("no postmaster.pid");
            },
            "x",
            warnings);

    Cost first;
    try (CostProbe.Span span = probe.start(context())) {
      first = span.end(10);
    }
    Cost second;
    try (CostProbe.Span span = probe.start(context())) {
      second = span.end(10);
    }

    for (Cost c : List.of(first, second)) {
      assertThat(c.units()).isEqualTo(10);
      assertThat(
              List.of(
                  c.walBytes(),
                  c.pgCpuMillis(),
                  c.commits(),
                  c.inserted(),
                  c.updated(),
                  c.deleted(),
                  c.kafkaBytes()))
          .allMatch(OptionalLong::isEmpty);
    }
    List<String> lines = err.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines)
        .hasSize(4)
        .allMatch(l -> l.startsWith("cost: ") && l.contains("not measured (shown as ?)"));
    assertThat(String.join("\n", lines))
        .contains("WAL bytes not measured (shown as ?): cannot connect to PostgreSQL")
        .contains("database counters not measured (shown as ?): cannot connect to PostgreSQL")
        .contains("PostgreSQL CPU not measured (shown as ?): cannot find the postmaster")
        .contains("no postmaster.pid")
        .contains("Kafka bytes not measured (shown as ?): cannot create a Kafka admin client");
  }

  @Test
  void the_table_line_gives_each_tables_tuples_per_instance_and_the_split_line_setup_and_run() {
    assertThat(
            CostProbe.byTable(
                "bench_x",
                List.of(
                    new CostProbe.TableTuples("instance_event", 3_000, 0, 0, 0),
                    new CostProbe.TableTuples("task_instance", 1_000, 2_990, 2_100, 0)),
                1_000))
        .isEqualTo(
            "cost: bench_x tuples per instance by table: instance_event 3.00 ins 0.00 upd (0.00"
                + " HOT) 0.00 del; task_instance 1.00 ins 2.99 upd (2.10 HOT) 0.00 del");
    assertThat(CostProbe.byTable("bench_x", List.of(), 10))
        .isEqualTo("cost: bench_x tuples per instance by table: none");

    Cost.Snapshot before =
        new Cost.Snapshot(
            OptionalLong.of(1_000), OptionalLong.of(100), Optional.empty(), OptionalLong.empty());
    Cost.Snapshot due =
        new Cost.Snapshot(
            OptionalLong.of(3_001_000),
            OptionalLong.of(400),
            Optional.empty(),
            OptionalLong.empty());
    Cost.Snapshot after =
        new Cost.Snapshot(
            OptionalLong.empty(), OptionalLong.of(500), Optional.empty(), OptionalLong.empty());
    // 1,000 instances; 100 ticks a second: 3 s of CPU before the due instant, 1 s after it.
    assertThat(
            CostProbe.split(
                "bench_x",
                Cost.between(before, due, 1_000, 100),
                Cost.between(due, after, 1_000, 100),
                OptionalLong.empty(),
                OptionalLong.of(250_000_000)))
        .isEqualTo(
            "cost: bench_x per instance, setup before the due instant: WAL 3,000 B, PostgreSQL"
                + " CPU 3,000 µs, this JVM's CPU ?; run from it: WAL ?, PostgreSQL CPU 1,000 µs,"
                + " this JVM's CPU 250 µs");
  }

  @Test
  void the_statement_lines_give_each_statements_time_and_calls_per_instance() {
    assertThat(
            CostProbe.byStatement(
                "bench_x",
                List.of(
                    new CostProbe.StatementTime(
                        "UPDATE task_instance\n   SET status = $1 WHERE id = $2", 2_000, 45.5),
                    new CostProbe.StatementTime("SELECT " + "x".repeat(400), 10, 0.25)),
                1_000))
        .containsExactly(
            "cost: bench_x PostgreSQL execution time per instance by statement, run from the due"
                + " instant (pg_stat_statements):",
            "cost:   45.5 µs in 2,000 calls: UPDATE task_instance SET status = $1 WHERE id = $2",
            "cost:   0.3 µs in 10 calls: SELECT " + "x".repeat(293) + "...");
    assertThat(CostProbe.byStatement("bench_x", List.of(), 10))
        .containsExactly(
            "cost: bench_x PostgreSQL execution time per instance by statement, run from the due"
                + " instant (pg_stat_statements): none");
  }
}
