package dev.carillon.bench.schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.bench.schedules.FireSeconds.Second;
import dev.carillon.bench.schedules.ScheduleMix.Cadence;
import dev.carillon.bench.schedules.ScheduleMix.Group;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

class FireSecondsTest {
  private static final LocalDate DAY = LocalDate.parse("2026-11-28");
  private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");
  private static final ZoneId MANILA = ZoneId.of("Asia/Manila");
  private static final ZoneId KOLKATA = ZoneId.of("Asia/Kolkata");
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  private static final ZoneId SYDNEY = ZoneId.of("Australia/Sydney");

  private static Map<Group, Integer> counts(Object... zoneCadenceCount) {
    Map<Group, Integer> out = new LinkedHashMap<>();
    for (int i = 0; i < zoneCadenceCount.length; i += 3) {
      out.put(
          new Group((ZoneId) zoneCadenceCount[i], (Cadence) zoneCadenceCount[i + 1]),
          (Integer) zoneCadenceCount[i + 2]);
    }
    return out;
  }

  @Test
  void
      zones_sharing_an_offset_fire_their_eight_oclock_in_one_utc_second_with_that_hours_hourly_tasks() {
    SortedMap<Instant, Second> seconds =
        FireSeconds.of(
            counts(
                SHANGHAI,
                Cadence.DAILY,
                5,
                MANILA,
                Cadence.DAILY,
                3,
                SHANGHAI,
                Cadence.HOURLY,
                2,
                BERLIN,
                Cadence.HOURLY,
                1),
            DAY);

    Second midnight = seconds.get(Instant.parse("2026-11-28T00:00:00Z"));
    assertThat(midnight.daily()).isEqualTo(8);
    assertThat(midnight.hourly()).isEqualTo(3);
    assertThat(midnight.dailyZones()).containsExactly(SHANGHAI, MANILA);
    // Every other top of the hour: the hourly tasks only.
    assertThat(seconds.get(Instant.parse("2026-11-28T13:00:00Z")).tasks()).isEqualTo(3);
    assertThat(seconds).hasSize(24);
  }

  @Test
  void the_busiest_second_counts_a_half_hour_zone_with_its_own_hourly_tasks() {
    Second busiest =
        FireSeconds.busiest(
            counts(
                SHANGHAI,
                Cadence.DAILY,
                5,
                SHANGHAI,
                Cadence.HOURLY,
                2,
                KOLKATA,
                Cadence.DAILY,
                9,
                KOLKATA,
                Cadence.HOURLY,
                4),
            DAY);

    // 08:00 IST is 02:30Z; Kolkata's hourly tasks fire at every half hour of UTC.
    assertThat(busiest.at()).isEqualTo(Instant.parse("2026-11-28T02:30:00Z"));
    assertThat(busiest.daily()).isEqualTo(9);
    assertThat(busiest.hourly()).isEqualTo(4);
    assertThat(busiest.tasks()).isEqualTo(13);
  }

  @Test
  void of_equal_seconds_the_earliest_is_the_busiest() {
    Second busiest =
        FireSeconds.busiest(counts(BERLIN, Cadence.DAILY, 4, SHANGHAI, Cadence.DAILY, 4), DAY);

    assertThat(busiest.at()).isEqualTo(Instant.parse("2026-11-28T00:00:00Z"));
  }

  @Test
  void a_zone_in_daylight_saving_time_fires_at_its_summer_offset() {
    SortedMap<Instant, Second> seconds = FireSeconds.of(counts(SYDNEY, Cadence.DAILY, 1), DAY);

    // Sydney is at +11:00 in November: 08:00 on the 29th local is 21:00Z on the 28th.
    assertThat(seconds.keySet()).containsExactly(Instant.parse("2026-11-28T21:00:00Z"));
  }

  @Test
  void with_people_weights_the_busiest_second_is_eight_oclock_at_plus_eight() {
    ScheduleMix mix = ScheduleMix.generate(100_000, 42, ZoneWeights.population());

    Second busiest = FireSeconds.busiest(mix.counts(), DAY);

    assertThat(busiest.at()).isEqualTo(Instant.parse("2026-11-28T00:00:00Z"));
    assertThat(busiest.dailyZones()).contains(SHANGHAI, MANILA);
    // About a fifth of the world is at +08:00; the hourly tasks of every whole-hour zone join.
    assertThat(busiest.daily()).isBetween(17_000, 22_000);
    assertThat(busiest.hourly()).isBetween(7_000, 8_500);
  }

  @Test
  void a_day_without_fires_has_no_busiest_second() {
    assertThatThrownBy(() -> FireSeconds.busiest(Map.of(), DAY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2026-11-28");
  }
}
