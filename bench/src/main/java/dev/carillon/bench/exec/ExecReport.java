package dev.carillon.bench.exec;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The exec bench's figures, computed from its samples, and their Markdown. Pure: the bench reads
 * the machine and the database, this class does the arithmetic.
 *
 * <p>The <em>plateau</em> is every sample taken while all runs were running and none had ended; the
 * rates, the memory and the PostgreSQL CPU "at the plateau" are from its first to its last sample
 * (maxima for memory and threads).
 */
final class ExecReport {
  private ExecReport() {}

  /**
   * One look at one worker JVM.
   *
   * @param heartbeats its lease heartbeat statements so far ({@code
   *     carillon_worker_heartbeats_total})
   * @param renewals the leases those statements renewed ({@code
   *     carillon_worker_leases_renewed_total})
   * @param running its runs now ({@code carillon_worker_running})
   * @param rssKb resident set ({@code VmRSS})
   * @param peakRssKb peak resident set so far ({@code VmHWM})
   * @param threads its threads
   * @param maps its memory mappings ({@code /proc/PID/maps} lines)
   * @param descendants processes under it (the commands)
   */
  record WorkerSample(
      double heartbeats,
      double renewals,
      double running,
      long rssKb,
      long peakRssKb,
      long threads,
      long maps,
      long descendants) {}

  /**
   * One look at everything.
   *
   * @param workers one sample per worker, in worker order
   * @param postgresTicks CPU clock ticks of the dev stack's PostgreSQL processes so far
   * @param succeeded runs in SUCCESS
   * @param ended runs that ended otherwise (FAILED, TIMEOUT, DEAD)
   */
  record Sample(
      Instant at, List<WorkerSample> workers, long postgresTicks, int succeeded, int ended) {
    Sample {
      workers = List.copyOf(workers);
    }

    double running() {
      return workers.stream().mapToDouble(WorkerSample::running).sum();
    }

    long descendants() {
      return workers.stream().mapToLong(WorkerSample::descendants).sum();
    }
  }

  /**
   * How the runs ended, from the database.
   *
   * @param succeeded runs in SUCCESS at the end
   * @param failed runs that ended otherwise
   * @param lastStarted the latest {@code started_at}, if any run started
   * @param lastSucceeded the latest {@code finished_at} of a SUCCESS, if any
   */
  record Outcome(
      int succeeded, int failed, Optional<Instant> lastStarted, Optional<Instant> lastSucceeded) {}

  /** The samples of the plateau: all {@code runs} running, none ended. */
  static List<Sample> plateau(List<Sample> samples, int runs) {
    return samples.stream()
        .filter(s -> s.running() >= runs && s.succeeded() == 0 && s.ended() == 0)
        .toList();
  }

  /** The increase of {@code counter} per second from {@code a} to {@code b}; NaN if no time. */
  static double perSecond(Sample a, Sample b, ToDoubleFunction<Sample> counter) {
    double seconds = seconds(a.at(), b.at());
    return seconds <= 0
        ? Double.NaN
        : (counter.applyAsDouble(b) - counter.applyAsDouble(a)) / seconds;
  }

  /**
   * CPU used from {@code a} to {@code b} as a share of one core: 0.25 is a quarter of one core's
   * time, 2.0 two whole cores. NaN if no time passed or a reading is missing.
   */
  static double coreShare(Sample a, Sample b, long ticksPerSecond) {
    double seconds = seconds(a.at(), b.at());
    if (seconds <= 0 || a.postgresTicks() < 0 || b.postgresTicks() < 0) {
      return Double.NaN;
    }
    return (b.postgresTicks() - a.postgresTicks()) / (double) ticksPerSecond / seconds;
  }

  /** The resident memory one run costs: the increase from before to the plateau, per run. */
  static double kbPerRun(long beforeKb, long plateauKb, double runs) {
    return runs <= 0 ? Double.NaN : (plateauKb - beforeKb) / runs;
  }

  /** The largest value of {@code f} over worker {@code w} in {@code samples}; -1 if none. */
  static long max(List<Sample> samples, int w, ToLongFunction<WorkerSample> f) {
    return samples.stream().mapToLong(s -> f.applyAsLong(s.workers().get(w))).max().orElse(-1);
  }

  private static double seconds(Instant a, Instant b) {
    return Duration.between(a, b).toMillis() / 1000.0;
  }

  /**
   * The report.
   *
   * @param before one sample of each worker after it was ready and before anything was published
   * @param shares the runs sent to each worker
   * @param machine the machine when the run started (cores, load), for the reader
   */
  static String markdown(
      ExecOptions options,
      String machine,
      WorkerJava java,
      List<WorkerSample> before,
      List<Integer> shares,
      Instant published,
      List<Sample> samples,
      Outcome outcome,
      long ticksPerSecond) {
    int runs = options.runs();
    int k = options.workers();
    List<Sample> plateau = plateau(samples, runs);
    Sample first = plateau.isEmpty() ? null : plateau.get(0);
    Sample last = plateau.isEmpty() ? null : plateau.get(plateau.size() - 1);
    boolean rates = plateau.size() >= 2;
    StringBuilder sb = new StringBuilder();
    sb.append("### ")
        .append(runs)
        .append(" concurrent exec runs of `sleep ")
        .append(options.sleep().toSeconds())
        .append("` on ")
        .append(k)
        .append(k == 1 ? " worker" : " workers")
        .append("\n\n");
    sb.append("`").append(options.command()).append("`\n\n");
    sb.append("| measure | value |\n| --- | --- |\n");
    row(sb, "succeeded", outcome.succeeded() + " of " + runs + ", " + outcome.failed() + " failed");
    row(
        sb,
        "published to the last start",
        outcome.lastStarted().map(t -> secs(published, t)).orElse("none started"));
    row(
        sb,
        "published to the last success",
        outcome.succeeded() == runs
            ? outcome.lastSucceeded().map(t -> secs(published, t)).orElse("n/a")
            : "not all succeeded");
    row(sb, "machine at the start", machine);
    row(
        sb,
        "worker JVM",
        java.versionLine()
            + ", "
            + (options.virtualThreads() ? "virtual" : "platform")
            + " run threads, heap "
            + options.heap()
            + " each");
    row(
        sb,
        "worker.concurrency (each)",
        options.concurrencyPerWorker() + "; runs sent per worker " + shares);
    row(
        sb,
        "most child processes at once (all workers)",
        Long.toString(samples.stream().mapToLong(Sample::descendants).max().orElse(0)));
    row(
        sb,
        "most runs running at once (all workers)",
        fmt("%.0f", samples.stream().mapToDouble(Sample::running).max().orElse(0)));
    row(
        sb,
        "plateau (all running, none ended)",
        plateau.isEmpty()
            ? "none: never all " + runs + " running at once"
            : plateau.size() + " samples, " + secs(first.at(), last.at()));
    row(
        sb,
        "lease heartbeat statements per second (plateau, all workers)",
        rates ? fmt("%.2f", perSecond(first, last, ExecReport::heartbeats)) : "n/a");
    row(
        sb,
        "lease renewals per second (plateau, all workers)",
        rates ? fmt("%.1f", perSecond(first, last, ExecReport::renewals)) : "n/a");
    row(
        sb,
        "PostgreSQL CPU (plateau, share of one core)",
        rates ? fmt("%.3f", coreShare(first, last, ticksPerSecond)) : "n/a");
    long rssBefore = before.stream().mapToLong(WorkerSample::rssKb).sum();
    long rssPlateau = 0;
    long threadsBefore = before.stream().mapToLong(WorkerSample::threads).sum();
    long threadsPlateau = 0;
    for (int w = 0; w < k; w++) {
      rssPlateau += max(plateau, w, WorkerSample::rssKb);
      threadsPlateau += max(plateau, w, WorkerSample::threads);
    }
    row(
        sb,
        "resident memory, all workers: before / plateau (max)",
        plateau.isEmpty() ? mib(rssBefore) + " / n/a" : mib(rssBefore) + " / " + mib(rssPlateau));
    row(
        sb,
        "resident memory per run (plateau - before) / runs",
        plateau.isEmpty() ? "n/a" : fmt("%.0f KiB", kbPerRun(rssBefore, rssPlateau, runs)));
    row(
        sb,
        "threads, all workers: before / plateau (max)",
        threadsBefore + " / " + (plateau.isEmpty() ? "n/a" : Long.toString(threadsPlateau)));
    row(
        sb,
        "worker threads per run (plateau - before) / runs",
        plateau.isEmpty() ? "n/a" : fmt("%.2f", (threadsPlateau - threadsBefore) / (double) runs));
    sb.append(
        "\n| worker | runs | RSS before | RSS plateau (max) | RSS peak (VmHWM) | per run"
            + " | threads before / plateau | memory maps (plateau) | heartbeats/s | renewals/s"
            + " |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int w = 0; w < k; w++) {
      int i = w;
      WorkerSample b = before.get(w);
      long rss = max(plateau, w, WorkerSample::rssKb);
      long hwm = max(samples, w, WorkerSample::peakRssKb);
      sb.append("| ")
          .append(w + 1)
          .append(" | ")
          .append(shares.get(w))
          .append(" | ")
          .append(mib(b.rssKb()))
          .append(" | ")
          .append(plateau.isEmpty() ? "n/a" : mib(rss))
          .append(" | ")
          .append(mib(hwm))
          .append(" | ")
          .append(
              plateau.isEmpty() ? "n/a" : fmt("%.0f KiB", kbPerRun(b.rssKb(), rss, shares.get(w))))
          .append(" | ")
          .append(b.threads())
          .append(" / ")
          .append(plateau.isEmpty() ? "n/a" : Long.toString(max(plateau, w, WorkerSample::threads)))
          .append(" | ")
          .append(plateau.isEmpty() ? "n/a" : Long.toString(max(plateau, w, WorkerSample::maps)))
          .append(" | ")
          .append(
              rates
                  ? fmt("%.2f", perSecond(first, last, s -> s.workers().get(i).heartbeats()))
                  : "n/a")
          .append(" | ")
          .append(
              rates
                  ? fmt("%.1f", perSecond(first, last, s -> s.workers().get(i).renewals()))
                  : "n/a")
          .append(" |\n");
    }
    return sb.toString();
  }

  private static double heartbeats(Sample s) {
    return s.workers().stream().mapToDouble(WorkerSample::heartbeats).sum();
  }

  private static double renewals(Sample s) {
    return s.workers().stream().mapToDouble(WorkerSample::renewals).sum();
  }

  private static String secs(Instant from, Instant to) {
    return fmt("%.1f s", seconds(from, to));
  }

  private static String mib(long kb) {
    return kb < 0 ? "n/a" : (kb / 1024) + " MiB";
  }

  private static String fmt(String format, double v) {
    return String.format(Locale.ROOT, format, v);
  }

  private static void row(StringBuilder sb, String k, String v) {
    sb.append("| ").append(k).append(" | ").append(v).append(" |\n");
  }
}
