package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.bench.carillon.CarillonSystem;
import dev.carillon.bench.dbscheduler.DbSchedulerSystem;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CostTableTest {
  private static final FireCheck CLEAN = FireCheck.byJob(Set.of(), Map.of());

  private static Cost cost(long units, long wal, long kafka) {
    Cost.Snapshot zero =
        new Cost.Snapshot(
            OptionalLong.of(0),
            OptionalLong.of(0),
            Optional.of(new Cost.DbCounters(0, 0, 0, 0)),
            OptionalLong.of(0));
    Cost.Snapshot after =
        new Cost.Snapshot(
            OptionalLong.of(wal),
            OptionalLong.of(units),
            Optional.of(new Cost.DbCounters(2 * units, units, 2 * units, units)),
            OptionalLong.of(kafka));
    return Cost.between(zero, after, units, 100);
  }

  private static RunResult.Burst burst(String system, Cost c) {
    return new RunResult.Burst(
        system, (int) c.units(), Duration.ofSeconds(1), List.of(), CLEAN, Duration.ZERO, c);
  }

  @Test
  void each_system_gets_a_row_of_per_instance_figures_and_totals() {
    String md =
        CostTable.markdown(
            List.of(new CarillonSystem(), new DbSchedulerSystem()),
            List.of(
                burst("Carillon", cost(2_000, 4_000_000, 600_000)),
                burst("db-scheduler", cost(2_000, 2_000_000, 0))));

    assertThat(md).startsWith("### Cost per instance (database and Kafka)");
    // Per instance: 2,000 B WAL, 10,000 µs CPU (2,000 ticks at 100/s = 20 s over 2,000),
    // 2 commits, 1 / 2 / 1 tuples and 300 B Kafka.
    assertThat(md)
        .contains(
            "| Carillon | burst | 2,000 instances | 2,000 | 10,000 | 2.00 | 1.00 | 2.00 | 1.00 | 300"
                + " | 4,000,000 | 20,000 | 4,000 | 2,000 / 4,000 / 2,000 | 600,000 |");
    assertThat(md).contains("| db-scheduler | burst | 2,000 instances | 1,000 |");
    assertThat(md).containsPattern("\\| db-scheduler \\|.*\\| — \\|.*\\| — \\|\n");
  }

  @Test
  void a_figure_no_run_could_read_shows_a_question_mark_and_unmeasured_runs_say_so() {
    String md =
        CostTable.markdown(
            List.of(new CarillonSystem()), List.of(burst("Carillon", Cost.unmeasured(50))));

    assertThat(md).contains("| Carillon | burst | 50 instances | ? | ? | ? | ? | ? | ? | ? |");
  }

  @Test
  void repeats_show_median_and_range_and_a_partly_read_figure_counts_its_runs() {
    List<Cost> costs = List.of(cost(100, 1_000, 1), cost(100, 3_000, 1), Cost.unmeasured(100));

    assertThat(CostTable.cell(costs, c -> c.perUnit(c.walBytes()), 0))
        .isEqualTo("20 [10–30] (2 of 3 runs)");
  }

  @Test
  void without_measured_runs_there_is_no_table() {
    assertThat(CostTable.markdown(List.of(new CarillonSystem()), List.of())).isEmpty();
  }
}
