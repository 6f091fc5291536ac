package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CostTest {
  private static Cost.Snapshot snapshot(long wal, long ticks, Cost.DbCounters db, long kafka) {
    return new Cost.Snapshot(
        OptionalLong.of(wal), OptionalLong.of(ticks), Optional.of(db), OptionalLong.of(kafka));
  }

  private static final Cost.Snapshot BEFORE =
      snapshot(1_000_000, 5_000, new Cost.DbCounters(10, 20, 30, 40), 7_000);
  private static final Cost.Snapshot AFTER =
      snapshot(5_000_000, 5_250, new Cost.DbCounters(4_010, 2_020, 4_030, 2_040), 407_000);

  @Test
  void the_cost_is_the_difference_of_every_figure_and_cpu_ticks_become_milliseconds() {
    Cost c = Cost.between(BEFORE, AFTER, 2_000, 100);

    assertThat(c.units()).isEqualTo(2_000);
    assertThat(c.walBytes()).hasValue(4_000_000);
    assertThat(c.pgCpuMillis()).hasValue(2_500);
    assertThat(c.commits()).hasValue(4_000);
    assertThat(c.inserted()).hasValue(2_000);
    assertThat(c.updated()).hasValue(4_000);
    assertThat(c.deleted()).hasValue(2_000);
    assertThat(c.tuples()).hasValue(8_000);
    assertThat(c.kafkaBytes()).hasValue(400_000);
  }

  @Test
  void per_instance_figures_divide_the_totals_by_the_units() {
    Cost c = Cost.between(BEFORE, AFTER, 2_000, 100);

    assertThat(c.perUnit(c.walBytes())).hasValue(2_000.0);
    assertThat(c.perUnit(c.pgCpuMillis())).hasValue(1.25);
    assertThat(c.perUnit(c.commits())).hasValue(2.0);
    assertThat(c.perUnit(c.kafkaBytes())).hasValue(200.0);
  }

  @Test
  void the_clock_tick_rate_scales_the_cpu_time() {
    assertThat(Cost.between(BEFORE, AFTER, 1, 250).pgCpuMillis()).hasValue(1_000);
    assertThatThrownBy(() -> Cost.between(BEFORE, AFTER, 1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ticksPerSecond")
        .hasMessageContaining("0");
  }

  @Test
  void a_figure_missing_on_either_side_is_unknown_and_the_others_stay() {
    Cost.Snapshot noCpu =
        new Cost.Snapshot(
            AFTER.walPosition(), OptionalLong.empty(), AFTER.db(), AFTER.kafkaBytes());
    Cost.Snapshot noDb =
        new Cost.Snapshot(
            BEFORE.walPosition(), BEFORE.cpuTicks(), Optional.empty(), OptionalLong.empty());

    Cost c = Cost.between(BEFORE, noCpu, 10, 100);
    assertThat(c.pgCpuMillis()).isEmpty();
    assertThat(c.perUnit(c.pgCpuMillis())).isEmpty();
    assertThat(c.walBytes()).hasValue(4_000_000);

    Cost d = Cost.between(noDb, AFTER, 10, 100);
    assertThat(d.commits()).isEmpty();
    assertThat(d.inserted()).isEmpty();
    assertThat(d.tuples()).isEmpty();
    assertThat(d.kafkaBytes()).isEmpty();
    assertThat(d.pgCpuMillis()).hasValue(2_500);
  }

  @Test
  void a_figure_that_went_backwards_is_unknown_rather_than_negative() {
    Cost c = Cost.between(AFTER, BEFORE, 10, 100);

    assertThat(List.of(c.walBytes(), c.pgCpuMillis(), c.commits(), c.kafkaBytes()))
        .allMatch(OptionalLong::isEmpty);
  }

  @Test
  void an_unmeasured_run_knows_nothing_but_its_units() {
    Cost c = Cost.unmeasured(200);

    assertThat(c.units()).isEqualTo(200);
    assertThat(
            List.of(
                c.walBytes(),
                c.pgCpuMillis(),
                c.commits(),
                c.inserted(),
                c.updated(),
                c.deleted(),
                c.kafkaBytes()))
        .allMatch(OptionalLong::isEmpty);
  }

  @Test
  void a_run_of_no_units_is_rejected() {
    assertThatThrownBy(() -> Cost.between(BEFORE, AFTER, 0, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("units must be at least 1, was 0");
  }

  @Test
  void the_database_name_is_the_last_path_segment_of_the_jdbc_url() {
    assertThat(CostProbe.databaseName("jdbc:postgresql://localhost:5432/bench_carillon_burst_7"))
        .isEqualTo("bench_carillon_burst_7");
    assertThat(CostProbe.databaseName("jdbc:postgresql://h:1/db_x?sslmode=disable"))
        .isEqualTo("db_x");
  }
}
