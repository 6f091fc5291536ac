package dev.carillon.model.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code (fromExclusive, upToInclusive]} contract, limits and bounds, away from DST. */
class CronScheduleIntervalTest {
  private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");
  private static final CronSchedule DAILY_0800 = CronSchedule.parse("0 0 8 * * ?", SHANGHAI);
  private static final CronSchedule EVERY_15_SECONDS =
      CronSchedule.parse("*/15 * * * * ?", SHANGHAI);

  // 08:00 in Shanghai (+08:00) is 00:00Z.
  private static final Instant FIRE = Instant.parse("2026-11-29T00:00:00Z");

  @Test
  void a_fire_time_equal_to_from_is_excluded() {
    assertThat(DAILY_0800.fireTimes(FIRE, FIRE.plusSeconds(3600), 10)).isEmpty();
  }

  @Test
  void a_fire_time_equal_to_upTo_is_included() {
    assertThat(DAILY_0800.fireTimes(FIRE.minusSeconds(1), FIRE, 10)).containsExactly(FIRE);
  }

  @Test
  void a_fire_time_one_nanosecond_after_from_is_included() {
    assertThat(DAILY_0800.fireTimes(FIRE.minusNanos(1), FIRE, 10)).containsExactly(FIRE);
  }

  @Test
  void a_fire_time_one_nanosecond_after_upTo_is_excluded() {
    assertThat(DAILY_0800.fireTimes(FIRE.minusSeconds(1), FIRE.minusNanos(1), 10)).isEmpty();
  }

  @Test
  void an_empty_interval_where_from_equals_upTo_has_no_fire_times() {
    assertThat(DAILY_0800.fireTimes(FIRE, FIRE, 10)).isEmpty();
    assertThat(EVERY_15_SECONDS.fireTimes(FIRE, FIRE, 10)).isEmpty();
  }

  @Test
  void a_reversed_interval_where_upTo_is_before_from_has_no_fire_times() {
    assertThat(DAILY_0800.fireTimes(FIRE.plusSeconds(1), FIRE.minusSeconds(1), 10)).isEmpty();
  }

  @Test
  void a_one_second_tick_without_a_fire_time_yields_nothing_and_the_tick_ending_on_it_yields_it() {
    Instant tick = FIRE.minusSeconds(5);
    List<List<Instant>> perTick = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      perTick.add(DAILY_0800.fireTimes(tick, tick.plusSeconds(1), 100));
      tick = tick.plusSeconds(1);
    }

    assertThat(perTick.get(4)).containsExactly(FIRE);
    assertThat(perTick).filteredOn(List::isEmpty).hasSize(9);
  }

  @Test
  void at_most_limit_fire_times_are_returned_and_they_are_the_earliest() {
    assertThat(EVERY_15_SECONDS.fireTimes(FIRE, FIRE.plusSeconds(3600), 3))
        .containsExactly(FIRE.plusSeconds(15), FIRE.plusSeconds(30), FIRE.plusSeconds(45));
  }

  @Test
  void a_limit_of_zero_returns_nothing_and_a_negative_limit_is_rejected() {
    assertThat(EVERY_15_SECONDS.fireTimes(FIRE, FIRE.plusSeconds(3600), 0)).isEmpty();
    assertThatThrownBy(() -> EVERY_15_SECONDS.fireTimes(FIRE, FIRE.plusSeconds(3600), -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit must be >= 0, was -1");
  }

  @Test
  void a_seconds_field_gives_four_fires_per_minute_in_from_exclusive_upTo_inclusive() {
    assertThat(EVERY_15_SECONDS.fireTimes(FIRE, FIRE.plusSeconds(60), 100))
        .containsExactly(
            FIRE.plusSeconds(15), FIRE.plusSeconds(30), FIRE.plusSeconds(45), FIRE.plusSeconds(60));
  }

  @Test
  void nextAfter_is_strictly_after_its_argument() {
    assertThat(DAILY_0800.nextAfter(FIRE.minusNanos(1))).contains(FIRE);
    assertThat(DAILY_0800.nextAfter(FIRE)).contains(FIRE.plusSeconds(86_400));
    assertThat(DAILY_0800.nextAfter(FIRE.plusMillis(500))).contains(FIRE.plusSeconds(86_400));
  }

  @Test
  void nextAfter_is_empty_once_a_year_limited_expression_is_exhausted() {
    CronSchedule only2026 = CronSchedule.parse("0 0 8 * * ? 2026", SHANGHAI);

    assertThat(only2026.nextAfter(Instant.parse("2026-12-30T12:00:00Z")))
        .contains(Instant.parse("2026-12-31T00:00:00Z"));
    assertThat(only2026.nextAfter(Instant.parse("2026-12-31T00:00:00Z"))).isEmpty();
    assertThat(only2026.fireTimes(Instant.parse("2026-12-31T00:00:00Z"), Instant.MAX, 10))
        .isEmpty();
  }

  @Test
  void extreme_instants_as_unbounded_interval_ends_do_not_overflow() {
    CronSchedule yearly = CronSchedule.parse("0 0 0 1 1 ?", ZoneId.of("UTC"));

    assertThat(yearly.fireTimes(Instant.MIN, Instant.MAX, 2))
        .containsExactly(
            Instant.parse("1970-01-01T00:00:00Z"), Instant.parse("1971-01-01T00:00:00Z"));
    assertThat(yearly.nextAfter(Instant.MIN)).contains(Instant.parse("1970-01-01T00:00:00Z"));
    assertThat(yearly.nextAfter(Instant.MAX)).isEmpty();
  }

  @Test
  void fireTimes_over_a_year_equals_the_chain_of_nextAfter_in_new_york() {
    CronSchedule schedule = CronSchedule.parse("0 */20 * * * ?", ZoneId.of("America/New_York"));
    Instant from = Instant.parse("2026-01-01T00:00:00Z");
    Instant upTo = Instant.parse("2027-01-01T00:00:00Z");

    List<Instant> chained = new ArrayList<>();
    Optional<Instant> next = schedule.nextAfter(from);
    while (next.isPresent() && !next.get().isAfter(upTo)) {
      chained.add(next.get());
      next = schedule.nextAfter(next.get());
    }

    assertThat(schedule.fireTimes(from, upTo, Integer.MAX_VALUE)).isEqualTo(chained);
    // 365 days of 72 fires: the spring gap merges 02:00, 02:20, 02:40 into 03:00 EDT (-3),
    // the fall-back repeats 01:00, 01:20, 01:40 (+3).
    assertThat(chained).hasSize(365 * 72);
  }

  @Test
  void fireTimesDetailed_reports_nominal_wall_clock_time_and_no_adjustment_on_ordinary_days() {
    assertThat(DAILY_0800.fireTimesDetailed(FIRE.minusSeconds(1), FIRE, 10))
        .containsExactly(
            new FireTime(FIRE, LocalDateTime.parse("2026-11-29T08:00"), DstAdjustment.NONE));
  }
}
