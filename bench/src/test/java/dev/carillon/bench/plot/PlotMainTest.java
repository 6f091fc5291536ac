package dev.carillon.bench.plot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlotMainTest {
  /** The plot beside docs/benchmarks.md and the points it is drawn from. */
  static final Path POINTS = Path.of("..", "docs", "bench-points.tsv");

  static final Path PLOT = Path.of("..", "docs", "bench-plot.svg");

  @Test
  void draws_a_points_file_into_an_svg(@TempDir Path dir) throws IOException {
    Path in = dir.resolve("points.tsv");
    PointsFile.append(in, List.of(PointsFileTest.burst("Carillon", 20_000, 17_308)));
    Path out = dir.resolve("plot.svg");

    assertThat(PlotMain.run(new String[] {in.toString(), out.toString()})).isZero();

    assertThat(Files.readString(out)).contains("Carillon, 20,000: 17,308 instances/s");
  }

  @Test
  void bad_arguments_exit_2_and_a_bad_file_exits_1_without_writing(@TempDir Path dir)
      throws IOException {
    Path out = dir.resolve("plot.svg");
    Path bad = dir.resolve("bad.tsv");
    Files.writeString(bad, PointsFile.HEADER + "\nnot a point\n");

    assertThat(PlotMain.run(new String[] {"only-one"})).isEqualTo(2);
    assertThat(PlotMain.run(new String[] {bad.toString(), dir.resolve("plot.png").toString()}))
        .isEqualTo(2);
    assertThat(PlotMain.run(new String[] {dir.resolve("none.tsv").toString(), out.toString()}))
        .isEqualTo(1);
    assertThat(PlotMain.run(new String[] {bad.toString(), out.toString()})).isEqualTo(1);
    assertThat(out).doesNotExist();
  }

  @Test
  void the_checked_in_plot_is_what_the_checked_in_points_draw() throws IOException {
    List<Point> points = PointsFile.read(POINTS);

    assertThat(points).as("the measured runs behind docs/bench-plot.svg").isNotEmpty();
    assertThat(Files.readString(PLOT))
        .as("regenerate with: bench/run.sh plot docs/bench-points.tsv docs/bench-plot.svg")
        .isEqualTo(SvgPlot.render(points, PlotMain.caption(POINTS, points)));
  }
}
