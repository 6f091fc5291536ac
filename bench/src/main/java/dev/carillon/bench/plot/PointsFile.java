package dev.carillon.bench.plot;

import dev.carillon.bench.BenchRunner;
import dev.carillon.bench.FireCheck;
import dev.carillon.bench.RunResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The points file: one tab-separated line per measured run, after a header line. The bench appends
 * to it ({@code --points FILE}); {@code bench/run.sh plot} reads it. Plain text, so that a reader
 * can see and edit what the plot is drawn from, and so that runs made on different days or with
 * different arguments add up in one file.
 */
public final class PointsFile {
  /** The header line; its columns are {@link Point}'s components in order. */
  static final String HEADER =
      "started\tworkload\tsystem\tsize\tdurable\tper_second\tlag_p50_ms\tlag_p99_ms"
          + "\tduplicates\tmisses";

  private static final String[] COLUMNS = HEADER.split("\t");
  private static final String NONE = "-";

  private PointsFile() {}

  /**
   * The points of one invocation's runs. A run that threw has no figures and is left out (the
   * Markdown report shows it); a burst that did not finish is kept with no throughput, so the file
   * still says it ran.
   */
  public static List<Point> of(BenchRunner.Results results) {
    Instant started = results.started();
    boolean durable = results.options().durable();
    List<Point> points = new ArrayList<>();
    for (RunResult r : results.runs()) {
      if (r instanceof RunResult.Burst b) {
        points.add(
            new Point(
                started,
                "burst",
                b.system(),
                b.n(),
                durable,
                b.perSecond(),
                Double.NaN,
                Double.NaN,
                b.check().duplicates() + b.check().unexpected(),
                b.check().misses()));
      } else if (r instanceof RunResult.Steady s) {
        points.add(steady(started, "steady", s.system(), s.rate(), durable, s.check()));
      } else if (r instanceof RunResult.Api a) {
        points.add(steady(started, "api", a.system(), a.rate(), durable, a.check()));
      }
    }
    return points;
  }

  private static Point steady(
      Instant started, String workload, String system, int rate, boolean durable, FireCheck c) {
    return new Point(
        started,
        workload,
        system,
        rate,
        durable,
        Double.NaN,
        c.lag().p50(),
        c.lag().p99(),
        c.duplicates() + c.unexpected(),
        c.misses());
  }

  /** Appends {@code points} to {@code file}, writing the header first if the file is new. */
  public static void append(Path file, List<Point> points) throws IOException {
    StringBuilder text = new StringBuilder();
    if (!Files.exists(file) || Files.size(file) == 0) {
      text.append(HEADER).append('\n');
    }
    for (Point p : points) {
      text.append(line(p)).append('\n');
    }
    Files.writeString(
        file,
        text,
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.WRITE,
        StandardOpenOption.APPEND);
  }

  static String line(Point p) {
    if (p.system().contains("\t") || p.system().contains("\n")) {
      throw new IllegalArgumentException(
          "a system name holds a tab or a line break: " + p.system());
    }
    return String.join(
        "\t",
        p.started().toString(),
        p.workload(),
        p.system(),
        Long.toString(p.size()),
        Boolean.toString(p.durable()),
        number(p.perSecond()),
        number(p.lagP50()),
        number(p.lagP99()),
        Long.toString(p.duplicates()),
        Long.toString(p.misses()));
  }

  /**
   * Reads every point of {@code file}.
   *
   * @throws IllegalArgumentException naming the file, the line, the column and the value when a
   *     line is not a point; nothing is returned then, so a plot is never drawn from part of a file
   */
  public static List<Point> read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    if (lines.isEmpty() || !lines.get(0).equals(HEADER)) {
      throw new IllegalArgumentException(
          file + " line 1: expected the header '" + HEADER.replace("\t", "<tab>") + "'");
    }
    List<Point> points = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      String l = lines.get(i);
      if (l.isBlank()) {
        continue;
      }
      points.add(parse(file + " line " + (i + 1), l));
    }
    return points;
  }

  static Point parse(String where, String line) {
    String[] f = line.split("\t", -1);
    if (f.length != COLUMNS.length) {
      throw new IllegalArgumentException(
          where + ": expected " + COLUMNS.length + " tab-separated columns, found " + f.length);
    }
    Instant started;
    try {
      started = Instant.parse(f[0]);
    } catch (DateTimeParseException e) {
      throw bad(where, 0, f[0], "an instant such as 2026-12-02T10:00:00Z");
    }
    String workload = f[1];
    if (!List.of("burst", "steady", "api").contains(workload)) {
      throw bad(where, 1, workload, "burst, steady or api");
    }
    if (f[2].isBlank()) {
      throw bad(where, 2, f[2], "a system name");
    }
    long size = whole(where, 3, f[3]);
    if (size < 1) {
      throw bad(where, 3, f[3], "a positive whole number");
    }
    if (!f[4].equals("true") && !f[4].equals("false")) {
      throw bad(where, 4, f[4], "true or false");
    }
    long duplicates = whole(where, 8, f[8]);
    long misses = whole(where, 9, f[9]);
    if (duplicates < 0 || misses < 0) {
      throw bad(where, duplicates < 0 ? 8 : 9, duplicates < 0 ? f[8] : f[9], "not negative");
    }
    return new Point(
        started,
        workload,
        f[2],
        size,
        Boolean.parseBoolean(f[4]),
        decimal(where, 5, f[5]),
        decimal(where, 6, f[6]),
        decimal(where, 7, f[7]),
        duplicates,
        misses);
  }

  private static String number(double v) {
    return Double.isNaN(v) ? NONE : String.format(Locale.ROOT, "%.3f", v);
  }

  private static long whole(String where, int column, String v) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw bad(where, column, v, "a whole number");
    }
  }

  private static double decimal(String where, int column, String v) {
    if (v.equals(NONE)) {
      return Double.NaN;
    }
    try {
      double d = Double.parseDouble(v);
      if (Double.isNaN(d) || Double.isInfinite(d) || d < 0) {
        throw bad(where, column, v, "a number of at least 0, or " + NONE);
      }
      return d;
    } catch (NumberFormatException e) {
      throw bad(where, column, v, "a number, or " + NONE + " for none");
    }
  }

  private static IllegalArgumentException bad(String where, int column, String v, String want) {
    return new IllegalArgumentException(
        where + ": column " + COLUMNS[column] + " must be " + want + ", was '" + v + "'");
  }
}
