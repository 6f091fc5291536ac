package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SteadyPlanTest {
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  @Test
  void rate_times_duration_fires_spread_evenly_over_rate_times_period_tasks() {
    SteadyPlan plan = SteadyPlan.of(T0, 500, Duration.ofSeconds(60), Duration.ofSeconds(10));

    assertThat(plan.tasks()).hasSize(5000);
    assertThat(plan.expectedFires()).hasSize(30_000);
    assertThat(plan.tasks().get(1).firstFire()).isEqualTo(T0.plusMillis(2));
    assertThat(plan.lastFire()).isBefore(T0.plusSeconds(60));
  }

  @Test
  void fires_are_in_start_inclusive_to_start_plus_duration_exclusive() {
    SteadyPlan plan = SteadyPlan.of(T0, 20, Duration.ofSeconds(3), Duration.ofSeconds(1));

    assertThat(plan.expectedFires())
        .hasSize(60)
        .allSatisfy(
            f -> assertThat(f.scheduled()).isAfterOrEqualTo(T0).isBefore(T0.plusSeconds(3)));
  }

  @Test
  void next_fire_counts_from_the_first_fire_and_ends_after_the_last() {
    SteadyPlan plan = SteadyPlan.of(T0, 20, Duration.ofSeconds(3), Duration.ofSeconds(1));
    SteadyPlan.Task t = plan.tasks().get(3);

    assertThat(plan.nextFire(t, t.firstFire())).contains(t.firstFire().plusSeconds(1));
    assertThat(plan.nextFire(t, t.firstFire().plusSeconds(2))).isEmpty();
  }

  @Test
  void a_fractional_number_of_tasks_is_refused() {
    assertThatThrownBy(() -> SteadyPlan.of(T0, 3, Duration.ofSeconds(3), Duration.ofMillis(500)))
        .hasMessageContaining("whole number of tasks");
  }

  @Test
  void at_whole_second_resolution_each_second_fires_its_share_at_the_second() {
    SteadyPlan plan =
        SteadyPlan.of(
            T0.plusMillis(1),
            500,
            Duration.ofSeconds(60),
            Duration.ofSeconds(10),
            Duration.ofSeconds(1));

    assertThat(plan.start()).isEqualTo(T0.plusSeconds(1));
    assertThat(plan.expectedFires())
        .hasSize(30_000)
        .allSatisfy(f -> assertThat(f.scheduledEpochMilli() % 1000).isZero());
    assertThat(plan.tasks().stream().filter(t -> t.firstFire().equals(T0.plusSeconds(1))))
        .hasSize(500);
    assertThat(plan.lastFire()).isEqualTo(T0.plusSeconds(60));
  }

  @Test
  void a_period_that_is_not_a_multiple_of_the_resolution_is_refused() {
    assertThatThrownBy(
            () ->
                SteadyPlan.of(
                    T0, 2, Duration.ofSeconds(3), Duration.ofMillis(1500), Duration.ofSeconds(1)))
        .hasMessageContaining("multiple of the resolution");
  }
}
