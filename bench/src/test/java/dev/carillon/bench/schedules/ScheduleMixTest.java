package dev.carillon.bench.schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import dev.carillon.bench.schedules.ScheduleMix.Cadence;
import dev.carillon.bench.schedules.ScheduleMix.PlannedTask;
import dev.carillon.bench.schedules.ZoneWeights.ZoneWeight;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import java.time.ZoneId;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ScheduleMixTest {
  private static final int N = 200_000;

  @Test
  void each_zone_gets_its_population_share_within_four_standard_deviations() {
    List<ZoneWeight> weights = ZoneWeights.population();
    double total = weights.stream().mapToDouble(ZoneWeight::weight).sum();
    Map<ZoneId, Long> byZone =
        ScheduleMix.generate(N, 42, weights).tasks().stream()
            .collect(Collectors.groupingBy(PlannedTask::zone, Collectors.counting()));

    assertThat(byZone.keySet()).hasSize(weights.size());
    for (ZoneWeight w : weights) {
      double p = w.weight() / total;
      double share = byZone.get(w.zone()) / (double) N;
      double sigma = Math.sqrt(p * (1 - p) / N);
      assertThat(share).as(w.zone().getId()).isCloseTo(p, offset(4 * sigma));
    }
  }

  @Test
  void india_and_china_together_hold_their_two_fifths_of_the_tasks() {
    Map<ZoneId, Long> byZone =
        ScheduleMix.generate(N, 7, ZoneWeights.population()).tasks().stream()
            .collect(Collectors.groupingBy(PlannedTask::zone, Collectors.counting()));

    long indiaAndChina =
        byZone.get(ZoneId.of("Asia/Kolkata")) + byZone.get(ZoneId.of("Asia/Shanghai"));
    // 2,851 of the table's 6,987 (the table leaves out the small countries, about 14 % of people).
    assertThat(indiaAndChina / (double) N).isCloseTo(2851 / 6987.2, offset(0.005));
  }

  @Test
  void exactly_one_task_in_ten_is_hourly_and_the_hourly_ones_spread_over_the_zones_too() {
    ScheduleMix mix = ScheduleMix.generate(N, 42, ZoneWeights.population());
    List<PlannedTask> hourly =
        mix.tasks().stream().filter(t -> t.cadence() == Cadence.HOURLY).toList();

    assertThat(hourly).hasSize(N / 10);
    long inKolkata = hourly.stream().filter(t -> t.zone().getId().equals("Asia/Kolkata")).count();
    double total = ZoneWeights.population().stream().mapToDouble(ZoneWeight::weight).sum();
    assertThat(inKolkata / (double) hourly.size()).isCloseTo(1441 / total, offset(0.01));
  }

  @Test
  void the_same_seed_gives_the_same_tasks_and_another_seed_other_zones() {
    List<PlannedTask> a = ScheduleMix.generate(10_000, 3, ZoneWeights.population()).tasks();
    List<PlannedTask> b = ScheduleMix.generate(10_000, 3, ZoneWeights.population()).tasks();
    List<PlannedTask> c = ScheduleMix.generate(10_000, 4, ZoneWeights.population()).tasks();

    assertThat(a).isEqualTo(b);
    assertThat(c).isNotEqualTo(a);
    assertThat(c).extracting(PlannedTask::id).isEqualTo(a.stream().map(PlannedTask::id).toList());
  }

  @Test
  void counts_add_up_to_the_tasks_per_zone_and_cadence() {
    ScheduleMix mix = ScheduleMix.generate(5_000, 1, ZoneWeights.population());
    Map<ScheduleMix.Group, Long> expected =
        mix.tasks().stream()
            .collect(
                Collectors.groupingBy(
                    t -> new ScheduleMix.Group(t.zone(), t.cadence()), Collectors.counting()));

    assertThat(mix.counts().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(5_000);
    mix.counts()
        .forEach((g, n) -> assertThat(n.longValue()).as(g.toString()).isEqualTo(expected.get(g)));
  }

  @Test
  void tasks_become_valid_definitions_with_unique_ids() {
    List<PlannedTask> tasks = ScheduleMix.generate(20, 9, ZoneWeights.population()).tasks();
    Set<String> ids = new HashSet<>();
    for (PlannedTask t : tasks) {
      TaskDefinition d = t.toDefinition();
      CronTrigger cron = (CronTrigger) d.trigger();

      assertThat(ids.add(d.id())).as(d.id()).isTrue();
      assertThat(d.handler()).isEqualTo("noop");
      assertThat(d.overlap()).isEqualTo(OverlapPolicy.ALLOW);
      assertThat(cron.zone()).isEqualTo(t.zone());
      assertThat(cron.cron()).isEqualTo(t.cadence().cron());
      assertThat(cron.window())
          .isEqualTo(t.cadence() == Cadence.HOURLY ? WindowKind.HOURLY : WindowKind.DAILY);
    }
    assertThat(tasks.get(9).cadence()).isEqualTo(Cadence.HOURLY);
    assertThat(tasks.get(9).id()).isEqualTo("sched-0000009");
  }

  @Test
  void a_mix_of_no_tasks_or_no_zones_is_refused_naming_the_field() {
    assertThatThrownBy(() -> ScheduleMix.generate(0, 1, ZoneWeights.population()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("n (tasks)")
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> ScheduleMix.generate(10, 1, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("weights");
    assertThatThrownBy(() -> new ZoneWeight(ZoneId.of("UTC"), 0))
        .hasMessageContaining("weight of UTC")
        .hasMessageContaining("was 0.0");
  }

  @Test
  void a_single_zone_gets_every_task() {
    ZoneId utc = ZoneId.of("UTC");
    Map<ZoneId, Long> byZone =
        ScheduleMix.generate(1_000, 5, List.of(new ZoneWeight(utc, 1))).tasks().stream()
            .collect(Collectors.groupingBy(PlannedTask::zone, Collectors.counting()));

    assertThat(byZone).containsExactly(Map.entry(utc, 1_000L));
  }
}
