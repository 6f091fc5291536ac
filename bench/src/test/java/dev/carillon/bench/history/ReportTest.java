package dev.carillon.bench.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.carillon.bench.Machine;
import dev.carillon.bench.console.BenchApi;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportTest {
  private static final HistoryOptions OPTIONS = new HistoryOptions(30, 864_000, 100, 1_000, 4);

  private static Report report() {
    // Two passes of 500 taking 100 and 300 ms.
    return new Report(
        OPTIONS,
        600,
        30,
        5,
        90_000_000,
        new HistoryBench.Archive(1_000, new double[] {100, 300}),
        new BenchApi.WarmUp(22, 1_234.5));
  }

  @Test
  void the_archive_rate_counts_the_scan_interval_between_passes() {
    Report r = report();

    assertThat(r.creationPerSecond()).isEqualTo(10.0);
    // 500 instances a pass, each pass 200 ms on average and then 1 s of pause.
    assertThat(r.archivePerSecondPaced()).isCloseTo(500 / 1.2, within(1e-9));
    assertThat(r.archive().rowsPerSecond()).isCloseTo(2_500, within(1e-9));
  }

  @Test
  void prints_the_command_the_reads_and_every_relation_at_three_moments() {
    Map<String, HistoryBench.Timed> reads = new LinkedHashMap<>();
    reads.put(
        "`why` of an archived instance", new HistoryBench.Timed(900, new double[] {1, 2, 3, 40}));
    RelationSizes before =
        new RelationSizes(Map.of("task_instance", new RelationSizes.Size(30_000_000, 30_000, 0)));
    RelationSizes after =
        new RelationSizes(
            Map.of(
                "task_instance", new RelationSizes.Size(31_000_000, 29_000, 1_000),
                "task_instance_history", new RelationSizes.Size(1_000_000, 1_000, 0)));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    report()
        .print(
            new PrintStream(bytes, true, StandardCharsets.UTF_8),
            new Machine(2, "cpu", "1 GiB", "java", "linux", "0.1 0.1 0.1"),
            new HistoryBench.Timed(70, new double[] {10, 20, 30, 40}),
            reads,
            List.of(before, after, after));
    String out = bytes.toString(StandardCharsets.UTF_8);

    assertThat(out)
        .contains(
            "`bench/run.sh history --days 30 --per-day 864000 --tasks 100 --backlog 1000"
                + " --rounds 4`")
        .contains("against 10.0 a second created (42× headroom)")
        .contains("counted the overview's 22 earlier hours ahead of any request in 1,235 ms")
        .contains(
            "| retry service: one pass of every scanner, nothing due | 70.0 | 25.0 | 40.0 | 40.0 |")
        .contains("| `why` of an archived instance | 900.0 | 2.5 | 40.0 | 40.0 |")
        .contains("| task_instance | 30.0 | 31.0 | 31.0 | 30,000 | 1,000 |")
        .contains("| task_instance_history | 0.0 | 1.0 | 1.0 |  | 0 |");
  }
}
