package dev.carillon.bench.history;

import dev.carillon.bench.Machine;
import dev.carillon.bench.Percentiles;
import dev.carillon.bench.console.BenchApi;
import java.io.PrintStream;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The history bench's Markdown: the seed, the archive against the month's creation rate, the scan
 * passes and the reads (p50, p95, max), and the relations' sizes at three moments.
 */
record Report(
    HistoryOptions options,
    double daysSeconds,
    double vacuumSeconds,
    double vacuumAfterSeconds,
    long events,
    HistoryBench.Archive archive,
    BenchApi.WarmUp warmUp) {

  /** The default pause between two passes of the retry leader ({@code retry.scan-interval}). */
  static final double SCAN_INTERVAL_SECONDS = 1.0;

  /** Rows a second one day's creation adds: what the archiver must at least keep up with. */
  double creationPerSecond() {
    return options.perDay() / 86_400.0;
  }

  /** Archived rows a second with the default pause of one second after each pass. */
  double archivePerSecondPaced() {
    double meanPass = 0;
    for (double p : archive.passMillis()) {
      meanPass += p;
    }
    meanPass /= archive.passMillis().length;
    double perPass = (double) archive.moved() / archive.passMillis().length;
    return perPass / (meanPass / 1000 + SCAN_INTERVAL_SECONDS);
  }

  void print(
      HistoryBench.Timed passes, Map<String, HistoryBench.Timed> reads, List<RelationSizes> sizes) {
    print(System.out, Machine.describe(), passes, reads, sizes);
  }

  void print(
      PrintStream out,
      Machine machine,
      HistoryBench.Timed passes,
      Map<String, HistoryBench.Timed> reads,
      List<RelationSizes> sizes) {
    long instances = (long) options.days() * options.perDay();
    out.printf(
        Locale.ROOT,
        "%n### A month of history: %d days × %,d instances, %,d tasks%n%n",
        options.days(),
        options.perDay(),
        options.tasks());
    out.printf(
        Locale.ROOT,
        "Machine: %d cores (%s), %s, %s; load at start %s. Command: `bench/run.sh history --days %d"
            + " --per-day %d --tasks %d --backlog %d --rounds %d`.%n%n",
        machine.cpus(),
        machine.cpuModel(),
        machine.memory(),
        machine.java(),
        machine.loadAtStart(),
        options.days(),
        options.perDay(),
        options.tasks(),
        options.backlog(),
        options.rounds());
    out.printf(
        Locale.ROOT,
        "Seeded %,d instances and %,d events (%.2f an instance; a coalesced decision row stands for"
            + " %,d) in %.0f s (%,.0f instances a second), then `vacuum analyze` in %.0f s.%n%n",
        instances + options.backlog(),
        events,
        (double) events / (instances + options.backlog()),
        HistorySeed.DECISION_REPEATS,
        daysSeconds,
        instances / daysSeconds,
        vacuumSeconds);
    out.printf(
        Locale.ROOT,
        "**Archive**: %,d instances with their events in %d passes of up to 500 (p50 %.0f ms, p95"
            + " %.0f ms a pass): %,.0f instances a second back to back, %,.0f a second with the"
            + " default 1 s between passes, against %,.1f a second created (%.0f× headroom).%n%n",
        archive.moved(),
        archive.passMillis().length,
        Percentiles.median(archive.passMillis()),
        Percentiles.of(archive.passMillis(), 95),
        archive.rowsPerSecond(),
        archivePerSecondPaced(),
        creationPerSecond(),
        archivePerSecondPaced() / creationPerSecond());
    out.printf(
        Locale.ROOT,
        "The API's start counted the overview's %d earlier hours ahead of any request in %,.0f ms;"
            + " the reads came after that. Each read: its first call (the API's and PostgreSQL's"
            + " caches cold for it), then p50, p95 and max over %d rounds after %d of warm-up, one"
            + " client, one call at a time.%n%n",
        warmUp.hours(),
        warmUp.millis(),
        options.rounds(),
        options.warmup());
    out.println("| read | first call ms | p50 ms | p95 ms | max ms |");
    out.println("| --- | ---: | ---: | ---: | ---: |");
    row(out, "retry service: one pass of every scanner, nothing due", passes);
    reads.forEach((name, times) -> row(out, name, times));
    out.println();
    out.println(
        "Sizes (MB; rows from PostgreSQL's statistics, which lag a little): after seeding and"
            + " `vacuum analyze`, after the archive, after a plain `vacuum`.");
    out.println();
    out.println(
        "| relation | seeded | archived | vacuumed | rows (seeded) | dead rows (archived) |");
    out.println("| --- | ---: | ---: | ---: | ---: | ---: |");
    Set<String> names = new LinkedHashSet<>();
    sizes.forEach(s -> names.addAll(s.relations().keySet()));
    for (String name : names) {
      RelationSizes.Size seeded = sizes.get(0).relations().get(name);
      RelationSizes.Size archived = sizes.get(1).relations().get(name);
      out.printf(
          Locale.ROOT,
          "| %s | %.1f | %.1f | %.1f | %s | %s |%n",
          name,
          sizes.get(0).bytes(name) / 1e6,
          sizes.get(1).bytes(name) / 1e6,
          sizes.get(2).bytes(name) / 1e6,
          seeded == null || seeded.liveRows() < 0 ? "" : String.format("%,d", seeded.liveRows()),
          archived == null || archived.deadRows() < 0
              ? ""
              : String.format("%,d", archived.deadRows()));
    }
    out.printf(Locale.ROOT, "%nPlain `vacuum` after the archive: %.1f s.%n", vacuumAfterSeconds);
  }

  private static void row(PrintStream out, String name, HistoryBench.Timed times) {
    out.printf(
        Locale.ROOT,
        "| %s | %.1f | %.1f | %.1f | %.1f |%n",
        name,
        times.first(),
        Percentiles.median(times.rounds()),
        Percentiles.of(times.rounds(), 95),
        Percentiles.of(times.rounds(), 100));
  }
}
