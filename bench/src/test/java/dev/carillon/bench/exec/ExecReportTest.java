package dev.carillon.bench.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.bench.exec.ExecReport.Outcome;
import dev.carillon.bench.exec.ExecReport.Sample;
import dev.carillon.bench.exec.ExecReport.WorkerSample;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ExecReportTest {
  private static final Instant T0 = Instant.parse("2026-12-02T02:30:00Z");

  @Test
  void the_plateau_is_every_sample_with_all_runs_running_and_none_ended() {
    List<Sample> samples =
        List.of(
            sample(0, 100, 50, 0, 0),
            sample(1, 300, 300, 0, 0),
            sample(2, 300, 300, 0, 0),
            sample(3, 300, 300, 1, 0),
            sample(4, 299, 299, 0, 1),
            sample(5, 300, 300, 0, 1));

    List<Sample> plateau = ExecReport.plateau(samples, 300);

    assertThat(plateau)
        .extracting(s -> s.at().getEpochSecond() - T0.getEpochSecond())
        .containsExactly(1L, 2L);
  }

  @Test
  void rates_and_cpu_are_per_second_from_the_first_to_the_last_sample() {
    Sample a = new Sample(T0, List.of(worker(10, 1000, 200)), 500, 0, 0);
    Sample b = new Sample(T0.plusSeconds(40), List.of(worker(14, 1800, 200)), 900, 0, 0);

    assertThat(ExecReport.perSecond(a, b, s -> s.workers().get(0).heartbeats())).isEqualTo(0.1);
    assertThat(ExecReport.perSecond(a, b, s -> s.workers().get(0).renewals())).isEqualTo(20.0);
    // 400 ticks of 1/100 s in 40 s: a tenth of one core.
    assertThat(ExecReport.coreShare(a, b, 100)).isEqualTo(0.1);
    assertThat(ExecReport.perSecond(a, a, s -> 1.0)).isNaN();
    assertThat(ExecReport.coreShare(new Sample(T0, List.of(), -1, 0, 0), b, 100)).isNaN();
  }

  @Test
  void memory_per_run_is_the_increase_from_before_to_the_plateau_divided_by_the_runs() {
    assertThat(ExecReport.kbPerRun(200_000, 300_000, 500)).isEqualTo(200.0);
    assertThat(ExecReport.kbPerRun(200_000, 300_000, 0)).isNaN();
  }

  @Test
  void the_report_sums_the_workers_at_the_plateau_and_shows_each() {
    ExecOptions options =
        ExecOptions.parse(new String[] {"--runs", "300", "--workers", "2", "--sleep", "20s"});
    List<WorkerSample> before = List.of(ws(0, 0, 0, 200 * 1024, 70), ws(0, 0, 0, 210 * 1024, 72));
    List<Sample> samples = new ArrayList<>();
    samples.add(
        new Sample(
            T0.plusSeconds(1),
            List.of(ws(0, 0, 100, 220 * 1024, 470), ws(0, 0, 100, 230 * 1024, 472)),
            1000,
            0,
            0));
    // Plateau: 10 s, worker 1 beats once (renewing 150), worker 2 twice (300), PostgreSQL 50 ticks.
    samples.add(
        new Sample(
            T0.plusSeconds(2),
            List.of(ws(1, 150, 150, 250 * 1024, 670), ws(1, 150, 150, 270 * 1024, 672)),
            1100,
            0,
            0));
    samples.add(
        new Sample(
            T0.plusSeconds(12),
            List.of(ws(2, 300, 150, 260 * 1024, 671), ws(3, 450, 150, 265 * 1024, 673)),
            1150,
            0,
            0));
    samples.add(
        new Sample(
            T0.plusSeconds(23),
            List.of(ws(2, 300, 0, 240 * 1024, 80), ws(3, 450, 0, 240 * 1024, 80)),
            1300,
            300,
            0));
    Outcome outcome =
        new Outcome(300, 0, Optional.of(T0.plusMillis(1500)), Optional.of(T0.plusMillis(22_300)));

    String md =
        ExecReport.markdown(
            options,
            "2 cores, load average 1.00 0.50 0.25, 700 threads running",
            new WorkerJava(Path.of("/usr/bin/java"), 17, "openjdk version \"17.0.15\""),
            before,
            List.of(150, 150),
            T0,
            samples,
            outcome,
            100);

    assertThat(md)
        .contains("### 300 concurrent exec runs of `sleep 20` on 2 workers")
        .contains("`bench/run.sh exec --runs 300 --sleep 20s --heap 512m --workers 2`")
        .contains("| succeeded | 300 of 300, 0 failed |")
        .contains(
            "| machine at the start | 2 cores, load average 1.00 0.50 0.25, 700 threads running |")
        .contains("| published to the last start | 1.5 s |")
        .contains("| published to the last success | 22.3 s |")
        .contains("| worker.concurrency (each) | 150; runs sent per worker [150, 150] |")
        .contains("| most child processes at once (all workers) | 300 |")
        .contains("| plateau (all running, none ended) | 2 samples, 10.0 s |")
        .contains("| lease heartbeat statements per second (plateau, all workers) | 0.30 |")
        .contains("| lease renewals per second (plateau, all workers) | 45.0 |")
        .contains("| PostgreSQL CPU (plateau, share of one core) | 0.050 |")
        // before 410 MiB; plateau maxima 260 + 270 = 530 MiB; 120 MiB over 300 runs = 410 KiB
        .contains("| resident memory, all workers: before / plateau (max) | 410 MiB / 530 MiB |")
        .contains("| resident memory per run (plateau - before) / runs | 410 KiB |")
        .contains("| threads, all workers: before / plateau (max) | 142 / 1344 |")
        .contains("| worker threads per run (plateau - before) / runs | 4.01 |")
        .contains(
            "| 1 | 150 | 200 MiB | 260 MiB | 261 MiB | 410 KiB | 70 / 671 | 1342 | 0.10 | 15.0 |")
        .contains(
            "| 2 | 150 | 210 MiB | 270 MiB | 271 MiB | 410 KiB | 72 / 673 | 1346 | 0.20 | 30.0 |");
  }

  @Test
  void without_a_plateau_the_figures_that_need_one_say_so_and_a_failure_is_counted() {
    ExecOptions options = ExecOptions.parse(new String[] {"--runs", "10"});
    List<Sample> samples =
        List.of(
            new Sample(T0.plusSeconds(1), List.of(ws(0, 0, 6, 300 * 1024, 90)), 10, 0, 0),
            new Sample(T0.plusSeconds(2), List.of(ws(0, 0, 0, 300 * 1024, 90)), 20, 9, 1));

    String md =
        ExecReport.markdown(
            options,
            "2 cores, load average 1.00 0.50 0.25, 700 threads running",
            new WorkerJava(Path.of("java"), 25, "openjdk version \"25.0.3\""),
            List.of(ws(0, 0, 0, 200 * 1024, 60)),
            List.of(10),
            T0,
            samples,
            new Outcome(9, 1, Optional.of(T0.plusSeconds(1)), Optional.of(T0.plusSeconds(2))),
            100);

    assertThat(md)
        .contains("| succeeded | 9 of 10, 1 failed |")
        .contains("| published to the last success | not all succeeded |")
        .contains("| most runs running at once (all workers) | 6 |")
        .contains("| plateau (all running, none ended) | none: never all 10 running at once |")
        .contains("| lease heartbeat statements per second (plateau, all workers) | n/a |")
        .contains("| resident memory per run (plateau - before) / runs | n/a |");
  }

  private static Sample sample(long second, int running, long children, int succeeded, int ended) {
    return new Sample(
        T0.plusSeconds(second),
        List.of(new WorkerSample(0, 0, running, 0, 0, 0, 0, children)),
        0,
        succeeded,
        ended);
  }

  private static WorkerSample worker(double heartbeats, double renewals, double running) {
    return new WorkerSample(heartbeats, renewals, running, 0, 0, 0, 0, 0);
  }

  /** A worker with {@code running} children, its peak 1 MiB over its RSS, 2 maps per thread. */
  private static WorkerSample ws(
      double beats, double renewals, double running, long rssKb, long threads) {
    return new WorkerSample(
        beats, renewals, running, rssKb, rssKb + 1024, threads, threads * 2, (long) running);
  }
}
