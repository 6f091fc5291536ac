package dev.carillon.bench.plot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PointsFileTest {
  static final Instant T = Instant.parse("2026-12-02T11:00:00Z");

  static Point burst(String system, long n, double perSecond) {
    return new Point(T, "burst", system, n, false, perSecond, Double.NaN, Double.NaN, 0, 0);
  }

  static Point steady(String system, long rate, double p99) {
    return new Point(T, "steady", system, rate, false, Double.NaN, p99 / 2, p99, 0, 0);
  }

  @Test
  void appended_points_read_back_the_same_and_the_header_is_written_once(@TempDir Path dir)
      throws IOException {
    Path f = dir.resolve("points.tsv");
    Point a = burst("Carillon", 100_000, 7471.25);
    Point b = steady("db-scheduler", 500, 101.3);
    Point c =
        new Point(
            T.plusSeconds(60),
            "burst",
            "Quartz",
            20_000,
            true,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            3,
            2);

    PointsFile.append(f, List.of(a, b));
    PointsFile.append(f, List.of(c));

    assertThat(Files.readAllLines(f)).hasSize(4).first().isEqualTo(PointsFile.HEADER);
    assertThat(PointsFile.read(f)).containsExactly(a, b, c);
  }

  @Test
  void a_bad_line_names_the_file_line_column_and_value_and_nothing_is_returned(@TempDir Path dir)
      throws IOException {
    Path f = dir.resolve("points.tsv");
    PointsFile.append(f, List.of(burst("Carillon", 20_000, 17_308)));
    Files.writeString(
        f,
        "2026-12-02T11:00:00Z\tburst\tCarillon\t20000\tfalse\tfast\t-\t-\t0\t0\n",
        java.nio.file.StandardOpenOption.APPEND);

    assertThatThrownBy(() -> PointsFile.read(f))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("points.tsv line 3")
        .hasMessageContaining("per_second")
        .hasMessageContaining("'fast'");
  }

  @Test
  void every_column_is_checked() {
    String good = "2026-12-02T11:00:00Z\tsteady\tCarillon\t500\tfalse\t-\t20.5\t72.5\t0\t0";
    assertThat(PointsFile.parse("x", good).lagP99()).isEqualTo(72.5);

    assertThatThrownBy(() -> PointsFile.parse("x", good.replace("2026-12-02T11:00:00Z", "today")))
        .hasMessageContaining("started")
        .hasMessageContaining("'today'");
    assertThatThrownBy(() -> PointsFile.parse("x", good.replace("steady", "burstt")))
        .hasMessageContaining("workload")
        .hasMessageContaining("'burstt'");
    assertThatThrownBy(() -> PointsFile.parse("x", good.replace("\t500\t", "\t0\t")))
        .hasMessageContaining("size")
        .hasMessageContaining("'0'");
    assertThatThrownBy(() -> PointsFile.parse("x", good.replace("false", "no")))
        .hasMessageContaining("durable")
        .hasMessageContaining("'no'");
    assertThatThrownBy(() -> PointsFile.parse("x", good.replace("72.5", "-3")))
        .hasMessageContaining("lag_p99_ms")
        .hasMessageContaining("'-3'");
    assertThatThrownBy(() -> PointsFile.parse("x", good.replace("72.5", "NaN")))
        .hasMessageContaining("lag_p99_ms")
        .hasMessageContaining("'NaN'");
    assertThatThrownBy(() -> PointsFile.parse("x", good.substring(0, good.lastIndexOf('\t'))))
        .hasMessageContaining("expected 10 tab-separated columns, found 9");
    assertThatThrownBy(() -> PointsFile.parse("x", good.replace("\t0\t0", "\t0\t-1")))
        .hasMessageContaining("misses")
        .hasMessageContaining("'-1'");
  }

  @Test
  void a_file_without_the_header_is_refused(@TempDir Path dir) throws IOException {
    Path f = dir.resolve("other.tsv");
    Files.writeString(f, "a\tb\n");

    assertThatThrownBy(() -> PointsFile.read(f))
        .hasMessageContaining("other.tsv line 1")
        .hasMessageContaining("header");
  }
}
