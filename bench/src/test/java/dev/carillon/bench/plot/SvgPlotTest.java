package dev.carillon.bench.plot;

import static dev.carillon.bench.plot.PointsFileTest.burst;
import static dev.carillon.bench.plot.PointsFileTest.steady;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

class SvgPlotTest {
  @Test
  void each_point_is_the_median_of_its_runs_and_a_larger_value_is_drawn_higher() throws Exception {
    List<Point> points =
        List.of(
            burst("Carillon", 20_000, 17_000),
            burst("Carillon", 20_000, 9_000),
            burst("Carillon", 20_000, 16_000),
            burst("Carillon", 100_000, 7_000),
            burst("db-scheduler", 20_000, 8_000),
            burst("db-scheduler", 100_000, 7_200));

    Document svg = parse(SvgPlot.render(points, "caption"));

    List<String> titles = titles(svg);
    assertThat(titles)
        .contains(
            "Carillon, 20,000: 16,000 instances/s (median of 3 runs)",
            "Carillon, 100,000: 7,000 instances/s (median of 1 run)",
            "db-scheduler, 100,000: 7,200 instances/s (median of 1 run)");
    double[] carillon = ys(svg, "Carillon, ");
    assertThat(carillon[0]).as("16,000/s is drawn above 7,000/s").isLessThan(carillon[1]);
    NodeList lines = svg.getElementsByTagName("polyline");
    assertThat(lines.getLength()).as("one line per system").isEqualTo(2);
    String[] xy = ((Element) lines.item(0)).getAttribute("points").split(" ");
    assertThat(xy).hasSize(2);
    assertThat(Double.parseDouble(xy[0].split(",")[0]))
        .as("20k left of 100k")
        .isLessThan(Double.parseDouble(xy[1].split(",")[0]));
  }

  @Test
  void the_lag_goals_are_drawn_at_the_rates_that_ran_and_inexact_runs_are_flagged()
      throws Exception {
    List<Point> points = new ArrayList<>();
    points.add(steady("Carillon", 100, 38.4));
    points.add(steady("Carillon", 500, 72.5));
    points.add(
        new Point(PointsFileTest.T, "steady", "Quartz", 500, false, Double.NaN, 2.5, 123.6, 0, 40));

    Document svg = parse(SvgPlot.render(points, "caption"));

    assertThat(titles(svg))
        .contains(
            "goal: at most 10 ms at 100",
            "goal: at most 50 ms at 500",
            "Carillon, 500: 72.5 ms (median of 1 run)",
            "Quartz, 500: 123.6 ms (median of 1 run; a run had duplicates or misses)");
    assertThat(texts(svg)).contains("no runs").as("the burst panel has none");
  }

  @Test
  void durable_runs_are_a_series_of_their_own_and_names_are_escaped() throws Exception {
    Point plain = burst("A<&>B", 20_000, 10_000);
    Point durable =
        new Point(
            plain.started(), "burst", "A<&>B", 20_000, true, 5_000, Double.NaN, Double.NaN, 0, 0);

    Document svg = parse(SvgPlot.render(List.of(plain, durable), "caption & more"));

    assertThat(texts(svg)).contains("A<&>B", "A<&>B (durable)", "caption & more");
    assertThat(svg.getElementsByTagName("polyline").getLength()).isEqualTo(2);
  }

  @Test
  void no_points_still_draws_a_valid_picture_that_says_so() throws Exception {
    Document svg = parse(SvgPlot.render(List.of(), "empty"));

    assertThat(texts(svg)).contains("no runs in the points file");
  }

  @Test
  void the_lag_axis_is_logarithmic_so_a_system_far_behind_does_not_flatten_the_others() {
    SvgPlot.YAxis y = SvgPlot.YAxis.log(3.3, 50_395);

    assertThat(y.ticks()).containsExactly(1.0, 10.0, 100.0, 1_000.0, 10_000.0, 100_000.0);
    assertThat(y.at(10) - y.at(100)).isCloseTo(y.at(100) - y.at(1_000), within(0.001));
    assertThat(y.at(44.9)).as("44.9 ms above 10 ms").isLessThan(y.at(10));
    assertThat(y.at(1)).isEqualTo(SvgPlot.TOP + SvgPlot.PANEL_HEIGHT);
    assertThat(y.at(100_000)).isEqualTo(SvgPlot.TOP);
    SvgPlot.YAxis linear = SvgPlot.YAxis.linear(17_308);
    assertThat(linear.ticks()).startsWith(0.0, 5_000.0).endsWith(20_000.0);
    assertThat(linear.at(0)).isEqualTo(SvgPlot.TOP + SvgPlot.PANEL_HEIGHT);
  }

  @Test
  void small_helpers() {
    assertThat(SvgPlot.shortNumber(20_000)).isEqualTo("20k");
    assertThat(SvgPlot.shortNumber(1_000_000)).isEqualTo("1M");
    assertThat(SvgPlot.shortNumber(2_500_000)).isEqualTo("2.5M");
    assertThat(SvgPlot.shortNumber(500)).isEqualTo("500");
    assertThat(SvgPlot.niceStep(3_400)).isEqualTo(5_000);
    assertThat(SvgPlot.niceStep(12)).isEqualTo(20);
    assertThat(SvgPlot.niceStep(0)).isEqualTo(1);
  }

  static Document parse(String svg) throws Exception {
    return DocumentBuilderFactory.newInstance()
        .newDocumentBuilder()
        .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
  }

  static List<String> titles(Document d) {
    return content(d.getElementsByTagName("title"));
  }

  static List<String> texts(Document d) {
    return content(d.getElementsByTagName("text"));
  }

  private static List<String> content(NodeList nodes) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      out.add(nodes.item(i).getTextContent());
    }
    return out;
  }

  /** The circles' y coordinates of one series, in size order. */
  private static double[] ys(Document d, String titlePrefix) {
    NodeList circles = d.getElementsByTagName("circle");
    List<Double> ys = new ArrayList<>();
    for (int i = 0; i < circles.getLength(); i++) {
      Element c = (Element) circles.item(i);
      if (c.getTextContent().startsWith(titlePrefix)) {
        ys.add(Double.parseDouble(c.getAttribute("cy")));
      }
    }
    return ys.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
