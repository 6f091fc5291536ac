package dev.carillon.bench.plot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * {@code bench/run.sh plot POINTS.tsv OUT.svg}: draws the points the bench appended with {@code
 * --points} (see {@link PointsFile}) into an SVG ({@link SvgPlot}). Exit code 2 for bad arguments,
 * 1 for a points file that cannot be read (the message names the line, the column and the value);
 * the SVG is written only when the whole file was read.
 */
public final class PlotMain {
  private PlotMain() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String[] args) {
    if (args.length != 2 || !args[1].endsWith(".svg")) {
      System.err.println("usage: bench/run.sh plot POINTS.tsv OUT.svg");
      return 2;
    }
    Path in = Path.of(args[0]);
    Path out = Path.of(args[1]);
    List<Point> points;
    try {
      points = PointsFile.read(in);
    } catch (NoSuchFileException e) {
      System.err.println("plot: no points file " + in);
      return 1;
    } catch (IOException | IllegalArgumentException e) {
      System.err.println("plot: " + e.getMessage());
      return 1;
    }
    String svg = SvgPlot.render(points, caption(in, points));
    try {
      Files.writeString(out, svg);
    } catch (IOException e) {
      System.err.println("plot: cannot write " + out + ": " + e.getMessage());
      return 1;
    }
    System.err.println("plot: " + points.size() + " runs from " + in + " drawn in " + out);
    return 0;
  }

  static String caption(Path in, List<Point> points) {
    if (points.isEmpty()) {
      return "no runs in " + in.getFileName();
    }
    Instant first = points.stream().map(Point::started).min(Instant::compareTo).orElseThrow();
    Instant last = points.stream().map(Point::started).max(Instant::compareTo).orElseThrow();
    return points.size()
        + " runs from "
        + in.getFileName()
        + ", invocations started "
        + first.toString().substring(0, 16)
        + "Z to "
        + last.toString().substring(0, 16)
        + "Z; each point the median of its runs; machine and commands in docs/benchmarks.md";
  }
}
