package dev.carillon.bench.plot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * Draws the points as an SVG of two panels: a burst's end-to-end throughput against the burst's
 * size, and a steady run's p99 fire lag against its rate, one line per system (durable runs a line
 * of their own), each point the median of the runs at that size. Sizes are on a log scale, since
 * they grow by factors (20,000, 100,000, 1,000,000). Fire lag goals of issue 24 are drawn where
 * they apply. Pure: text in, text out, so the picture is tested without running anything.
 */
public final class SvgPlot {
  static final int PANEL_WIDTH = 460;
  static final int PANEL_HEIGHT = 280;
  static final int LEFT = 80;
  static final int TOP = 70;
  static final int GAP = 110;
  static final int LEGEND_TOP = TOP + PANEL_HEIGHT + 60;

  private static final List<String> COLOURS =
      List.of(
          "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#e377c2",
          "#7f7f7f", "#bcbd22");

  /** A goal drawn in a panel: at most {@code value} at {@code size}. */
  record Goal(long size, double value) {}

  /** Issue 24's fire lag goals: p99 at most 10 ms at 100 fires/s, 50 ms at 500 fires/s. */
  static final List<Goal> LAG_GOALS = List.of(new Goal(100, 10), new Goal(500, 50));

  private SvgPlot() {}

  /**
   * The whole picture.
   *
   * @param caption one line under the title: where the points came from, on what machine
   */
  public static String render(List<Point> points, String caption) {
    Map<String, String> colours = new LinkedHashMap<>();
    for (Point p : points) {
      if (!p.workload().equals("api")) {
        colours.computeIfAbsent(p.series(), s -> COLOURS.get(colours.size() % COLOURS.size()));
      }
    }
    int width = LEFT + 2 * PANEL_WIDTH + GAP + 40;
    int height = LEGEND_TOP + 24 * Math.max(1, colours.size()) + 20;
    StringBuilder svg = new StringBuilder();
    svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(width)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(width)
        .append(' ')
        .append(height)
        .append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    text(svg, LEFT, 24, "start", 16, "Carillon bench: throughput and fire lag against size");
    text(svg, LEFT, 44, "start", 11, caption);
    panel(
        svg,
        LEFT,
        "Burst: end-to-end instances/s (higher is better)",
        "instances due at once",
        select(points, "burst", Point::perSecond),
        List.of(),
        colours,
        "instances/s",
        false);
    panel(
        svg,
        LEFT + PANEL_WIDTH + GAP,
        "Steady: p99 fire lag, ms, log scale (lower is better)",
        "fires per second",
        select(points, "steady", Point::lagP99),
        LAG_GOALS,
        colours,
        "ms",
        true);
    int y = LEGEND_TOP;
    for (Map.Entry<String, String> e : colours.entrySet()) {
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
              LEFT,
              y - 4,
              LEFT + 30,
              y - 4,
              e.getValue(),
              dash(e.getKey())));
      text(svg, LEFT + 38, y, "start", 12, e.getKey());
      y += 24;
    }
    if (colours.isEmpty()) {
      text(svg, LEFT, y, "start", 12, "no runs in the points file");
    }
    svg.append("</svg>\n");
    return svg.toString();
  }

  /** One value per series and size: the median of that size's runs; inexact runs are flagged. */
  record Cell(double median, int runs, boolean inexact) {}

  static Map<String, TreeMap<Long, Cell>> select(
      List<Point> points, String workload, ToDoubleFunction<Point> value) {
    Map<String, TreeMap<Long, List<Point>>> grouped = new LinkedHashMap<>();
    for (Point p : points) {
      if (p.workload().equals(workload)) {
        grouped
            .computeIfAbsent(p.series(), s -> new TreeMap<>())
            .computeIfAbsent(p.size(), s -> new ArrayList<>())
            .add(p);
      }
    }
    Map<String, TreeMap<Long, Cell>> cells = new LinkedHashMap<>();
    grouped.forEach(
        (series, bySize) -> {
          TreeMap<Long, Cell> row = new TreeMap<>();
          bySize.forEach(
              (size, runs) -> {
                double[] v =
                    runs.stream()
                        .mapToDouble(value)
                        .filter(d -> !Double.isNaN(d))
                        .sorted()
                        .toArray();
                boolean inexact = runs.stream().anyMatch(p -> !p.exact());
                if (v.length > 0) {
                  row.put(size, new Cell(median(v), v.length, inexact));
                }
              });
          if (!row.isEmpty()) {
            cells.put(series, row);
          }
        });
    return cells;
  }

  private static void panel(
      StringBuilder svg,
      int x0,
      String title,
      String xLabel,
      Map<String, TreeMap<Long, Cell>> cells,
      List<Goal> goals,
      Map<String, String> colours,
      String unit,
      boolean logY) {
    text(svg, x0, TOP - 12, "start", 13, title);
    svg.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n",
            x0,
            TOP,
            PANEL_WIDTH,
            PANEL_HEIGHT));
    text(svg, x0 + PANEL_WIDTH / 2, TOP + PANEL_HEIGHT + 36, "middle", 12, xLabel);
    if (cells.isEmpty()) {
      text(svg, x0 + PANEL_WIDTH / 2, TOP + PANEL_HEIGHT / 2, "middle", 12, "no runs");
      return;
    }
    // The sizes that ran, and the range of the values and of the goals drawn, in one pass.
    TreeSet<Long> sizes = new TreeSet<>();
    double max = 0;
    double min = Double.MAX_VALUE;
    for (TreeMap<Long, Cell> row : cells.values()) {
      for (Map.Entry<Long, Cell> c : row.entrySet()) {
        sizes.add(c.getKey());
        max = Math.max(max, c.getValue().median());
        min = Math.min(min, c.getValue().median());
      }
    }
    List<Goal> shown = new ArrayList<>();
    for (Goal g : goals) {
      if (sizes.contains(g.size())) {
        shown.add(g);
        max = Math.max(max, g.value());
        min = Math.min(min, g.value());
      }
    }
    Axis x = Axis.log(sizes.first(), sizes.last(), x0, PANEL_WIDTH);
    YAxis yAxis = logY ? YAxis.log(min, max) : YAxis.linear(max);
    for (long s : sizes) {
      double px = x.at(s);
      gridLine(svg, px, TOP, px, TOP + PANEL_HEIGHT, "#ddd");
      text(svg, px, TOP + PANEL_HEIGHT + 16, "middle", 11, shortNumber(s));
    }
    for (double v : yAxis.ticks()) {
      double py = yAxis.at(v);
      gridLine(svg, x0, py, x0 + PANEL_WIDTH, py, "#eee");
      text(svg, x0 - 6, py + 4, "end", 11, grouped(v));
    }
    for (Goal g : shown) {
      double px = x.at(g.size());
      double py = yAxis.at(g.value());
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\""
                  + " stroke-width=\"3\" stroke-dasharray=\"4 3\"><title>goal: at most %s %s at"
                  + " %s</title></line>\n",
              px - 22,
              py,
              px + 22,
              py,
              grouped(g.value()),
              unit,
              shortNumber(g.size())));
      text(svg, px + 26, py + 4, "start", 10, "goal " + grouped(g.value()));
    }
    for (Map.Entry<String, TreeMap<Long, Cell>> e : cells.entrySet()) {
      String colour = colours.get(e.getKey());
      StringBuilder line = new StringBuilder();
      for (Map.Entry<Long, Cell> c : e.getValue().entrySet()) {
        line.append(
            String.format(
                Locale.ROOT, "%.1f,%.1f ", x.at(c.getKey()), yAxis.at(c.getValue().median())));
      }
      svg.append("<polyline fill=\"none\" stroke=\"")
          .append(colour)
          .append("\" stroke-width=\"2\"")
          .append(dash(e.getKey()))
          .append(" points=\"")
          .append(line.toString().trim())
          .append("\"/>\n");
      for (Map.Entry<Long, Cell> c : e.getValue().entrySet()) {
        Cell cell = c.getValue();
        double px = x.at(c.getKey());
        double py = yAxis.at(cell.median());
        svg.append(
                String.format(
                    Locale.ROOT,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"%s>",
                    px,
                    py,
                    colour,
                    cell.inexact() ? " stroke=\"black\" stroke-width=\"2\"" : ""))
            .append("<title>")
            .append(
                escape(
                    e.getKey()
                        + ", "
                        + grouped(c.getKey())
                        + ": "
                        + grouped(cell.median())
                        + " "
                        + unit
                        + " (median of "
                        + cell.runs()
                        + (cell.runs() == 1 ? " run" : " runs")
                        + (cell.inexact() ? "; a run had duplicates or misses" : "")
                        + ")"))
            .append("</title></circle>\n");
        text(svg, px + 6, py - 6, "start", 10, grouped(cell.median()));
      }
    }
  }

  /** A log-scale axis over [min, max] with a margin, or the middle when there is one size. */
  record Axis(double logMin, double logMax, int x0, int width) {
    static Axis log(long min, long max, int x0, int width) {
      return new Axis(Math.log10(min), Math.log10(max), x0, width);
    }

    double at(long size) {
      double margin = width * 0.1;
      if (logMax == logMin) {
        return x0 + width / 2.0;
      }
      return x0 + margin + (Math.log10(size) - logMin) / (logMax - logMin) * (width - 2 * margin);
    }
  }

  /**
   * The vertical axis: linear from 0 (throughput), or logarithmic over whole decades (fire lag,
   * which spans milliseconds to the tens of seconds of a system that fell behind).
   */
  record YAxis(boolean log, double bottom, double top, List<Double> ticks) {
    static YAxis linear(double max) {
      double step = niceStep(max / 5);
      double top = Math.max(step, Math.ceil(max * 1.1 / step) * step);
      List<Double> ticks = new ArrayList<>();
      for (int i = 0; i * step <= top + step / 2; i++) {
        ticks.add(i * step);
      }
      return new YAxis(false, 0, top, ticks);
    }

    static YAxis log(double min, double max) {
      // A decade below the smallest value, so that a value (or a goal) on a whole decade is not
      // drawn on the axis itself.
      double bottom = Math.floor(Math.log10(Math.max(min, 0.1) * 0.99));
      double top = Math.max(bottom + 1, Math.ceil(Math.log10(Math.max(max, 0.1))));
      List<Double> ticks = new ArrayList<>();
      for (double d = bottom; d <= top; d++) {
        ticks.add(Math.pow(10, d));
      }
      return new YAxis(true, bottom, top, ticks);
    }

    double at(double v) {
      double share =
          log ? (Math.log10(Math.max(v, Math.pow(10, bottom))) - bottom) / (top - bottom) : v / top;
      return TOP + PANEL_HEIGHT - share * PANEL_HEIGHT;
    }
  }

  /** 1, 2 or 5 times a power of ten, at least {@code rough}. */
  static double niceStep(double rough) {
    if (!(rough > 0)) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(rough)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * p >= rough) {
        return m * p;
      }
    }
    return 10 * p;
  }

  /** 20000 as 20k, 1000000 as 1M, 500 as 500. */
  static String shortNumber(long v) {
    if (v >= 1_000_000 && v % 100_000 == 0) {
      return trim(v / 1_000_000.0) + "M";
    }
    if (v >= 1_000 && v % 100 == 0) {
      return trim(v / 1_000.0) + "k";
    }
    return Long.toString(v);
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String grouped(double v) {
    return v >= 1_000 || v == Math.rint(v)
        ? String.format(Locale.ROOT, "%,.0f", v)
        : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String dash(String series) {
    return series.endsWith("(durable)") ? " stroke-dasharray=\"6 4\"" : "";
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static void gridLine(
      StringBuilder svg, double x1, double y1, double x2, double y2, String colour) {
    svg.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
            x1,
            y1,
            x2,
            y2,
            colour));
  }

  private static void text(
      StringBuilder svg, double x, double y, String anchor, int size, String text) {
    svg.append(
            String.format(
                Locale.ROOT,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">",
                x,
                y,
                anchor,
                size))
        .append(escape(text))
        .append("</text>\n");
  }

  static String escape(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
