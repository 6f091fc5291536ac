package dev.carillon.model.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The daylight-saving policy of {@link CronSchedule}. Transitions in 2026: America/New_York gap
 * 03-08 02:00→03:00, overlap 11-01 02:00→01:00; Europe/London gap 03-29 01:00→02:00, overlap 10-25
 * 02:00→01:00; Australia/Lord_Howe overlap 04-05 02:00→01:30 (+11:00→+10:30), gap 10-04 02:00→02:30
 * (+10:30→+11:00); Asia/Shanghai has none (+08:00).
 */
class CronScheduleDstTest {
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
  private static final ZoneId LORD_HOWE = ZoneId.of("Australia/Lord_Howe");

  /** Every fire time of {@code schedule} within the local calendar day {@code date}. */
  private static List<FireTime> firesOnLocalDay(CronSchedule schedule, LocalDate date) {
    Window day =
        WindowKind.DAILY.windowOf(date.atStartOfDay(schedule.zone()).toInstant(), schedule.zone());
    // The day is [start, end); fire times are whole seconds, so (start - 1s, end - 1s] is the same.
    return schedule.fireTimesDetailed(
        day.start().minusSeconds(1), day.end().minusSeconds(1), Integer.MAX_VALUE);
  }

  @ParameterizedTest(name = "{0} {2} on {1} fires once at {3} ({4})")
  @CsvSource({
    // zone,              local day,  time,  the one fire time,      adjustment
    "America/New_York,    2026-03-08, 02:30, 2026-03-08T07:00:00Z, SHIFTED_OUT_OF_GAP",
    "America/New_York,    2026-03-08, 01:30, 2026-03-08T06:30:00Z, NONE",
    "America/New_York,    2026-03-08, 08:00, 2026-03-08T12:00:00Z, NONE",
    "America/New_York,    2026-11-01, 02:30, 2026-11-01T07:30:00Z, NONE",
    "America/New_York,    2026-11-01, 01:30, 2026-11-01T05:30:00Z, FIRST_OF_REPEATED",
    "America/New_York,    2026-11-01, 08:00, 2026-11-01T13:00:00Z, NONE",
    "Europe/London,       2026-03-29, 02:30, 2026-03-29T01:30:00Z, NONE",
    "Europe/London,       2026-03-29, 01:30, 2026-03-29T01:00:00Z, SHIFTED_OUT_OF_GAP",
    "Europe/London,       2026-03-29, 08:00, 2026-03-29T07:00:00Z, NONE",
    "Europe/London,       2026-10-25, 02:30, 2026-10-25T02:30:00Z, NONE",
    "Europe/London,       2026-10-25, 01:30, 2026-10-25T00:30:00Z, FIRST_OF_REPEATED",
    "Europe/London,       2026-10-25, 08:00, 2026-10-25T08:00:00Z, NONE",
    // Lord Howe's gap is only 30 minutes: 02:30 exists, 02:15 does not.
    "Australia/Lord_Howe, 2026-10-04, 02:30, 2026-10-03T15:30:00Z, NONE",
    "Australia/Lord_Howe, 2026-10-04, 02:15, 2026-10-03T15:30:00Z, SHIFTED_OUT_OF_GAP",
    "Australia/Lord_Howe, 2026-10-04, 01:30, 2026-10-03T15:00:00Z, NONE",
    "Australia/Lord_Howe, 2026-10-04, 08:00, 2026-10-03T21:00:00Z, NONE",
    "Australia/Lord_Howe, 2026-04-05, 02:30, 2026-04-04T16:00:00Z, NONE",
    "Australia/Lord_Howe, 2026-04-05, 01:30, 2026-04-04T14:30:00Z, FIRST_OF_REPEATED",
    "Australia/Lord_Howe, 2026-04-05, 08:00, 2026-04-04T21:30:00Z, NONE",
    "Asia/Shanghai,       2026-03-08, 02:30, 2026-03-07T18:30:00Z, NONE",
    "Asia/Shanghai,       2026-11-01, 01:30, 2026-10-31T17:30:00Z, NONE",
    "Asia/Shanghai,       2026-11-01, 08:00, 2026-11-01T00:00:00Z, NONE",
    // Santiago's clocks jump from 00:00 to 01:00, so midnight does not exist that day.
    "America/Santiago,    2026-09-06, 00:00, 2026-09-06T04:00:00Z, SHIFTED_OUT_OF_GAP",
    // Nuuk's jump from 23:00 -02:00 to 00:00 -01:00 ends the day: 23:30 fires at 22:59:59.
    "America/Nuuk,        2026-03-28, 23:30, 2026-03-29T00:59:59Z, SHIFTED_OUT_OF_GAP",
    "America/Nuuk,        2026-03-28, 23:00, 2026-03-29T00:59:59Z, SHIFTED_OUT_OF_GAP",
    "America/Nuuk,        2026-03-28, 22:30, 2026-03-29T00:30:00Z, NONE",
    "America/Nuuk,        2026-03-29, 00:00, 2026-03-29T01:00:00Z, NONE",
    "America/Nuuk,        2026-03-29, 23:30, 2026-03-30T00:30:00Z, NONE",
  })
  void a_daily_schedule_fires_exactly_once_on_each_dst_day_at_the_documented_instant(
      String zone, LocalDate day, String time, Instant expected, DstAdjustment adjustment) {
    String[] hm = time.split(":");
    CronSchedule daily = CronSchedule.parse("0 " + hm[1] + " " + hm[0] + " * * ?", ZoneId.of(zone));

    assertThat(firesOnLocalDay(daily, day))
        .containsExactly(
            new FireTime(expected, LocalDateTime.of(day, LocalTime.parse(time)), adjustment));
  }

  @Test
  void daily_0230_fires_at_0300_on_spring_forward_day_in_new_york() {
    CronSchedule daily = CronSchedule.parse("0 30 2 * * ?", NEW_YORK);

    assertThat(
            daily.fireTimes(
                Instant.parse("2026-03-07T00:00:00Z"), Instant.parse("2026-03-10T00:00:00Z"), 10))
        .containsExactly(
            Instant.parse("2026-03-07T07:30:00Z"), // 02:30 EST
            Instant.parse("2026-03-08T07:00:00Z"), // 03:00 EDT: 02:30 does not exist
            Instant.parse("2026-03-09T06:30:00Z")); // 02:30 EDT
  }

  @Test
  void daily_0130_fires_once_at_the_first_0130_on_fall_back_day_in_new_york() {
    CronSchedule daily = CronSchedule.parse("0 30 1 * * ?", NEW_YORK);

    assertThat(
            daily.fireTimes(
                Instant.parse("2026-10-31T00:00:00Z"), Instant.parse("2026-11-03T00:00:00Z"), 10))
        .containsExactly(
            Instant.parse("2026-10-31T05:30:00Z"), // 01:30 EDT
            Instant.parse("2026-11-01T05:30:00Z"), // the first 01:30 (EDT); 06:30Z is skipped
            Instant.parse("2026-11-02T06:30:00Z")); // 01:30 EST
  }

  @Test
  void a_gap_that_ends_the_day_keeps_each_daily_window_exactly_once_in_nuuk() {
    // Regression: 23:30 on 2026-03-28 used to fire at the transition, 00:00 on 03-29, so that
    // 03-28 had no window and 03-29 two fires for one window (the second one lost).
    ZoneId nuuk = ZoneId.of("America/Nuuk");
    CronSchedule daily = CronSchedule.parse("0 30 23 * * ?", nuuk);

    List<FireTime> fires =
        daily.fireTimesDetailed(
            Instant.parse("2026-03-27T12:00:00Z"), Instant.parse("2026-03-30T12:00:00Z"), 10);

    assertThat(fires)
        .containsExactly(
            fire("2026-03-28T01:30:00Z", "2026-03-27T23:30", DstAdjustment.NONE),
            fire("2026-03-29T00:59:59Z", "2026-03-28T23:30", DstAdjustment.SHIFTED_OUT_OF_GAP),
            fire("2026-03-30T00:30:00Z", "2026-03-29T23:30", DstAdjustment.NONE));
    assertThat(fires)
        .extracting(f -> WindowKind.DAILY.windowOf(f.instant(), nuuk).key())
        .containsExactly("2026-03-27", "2026-03-28", "2026-03-29");
  }

  @ParameterizedTest(name = "{0} ''{2}'' on {1}: {3} fires in a {4} day")
  @CsvSource({
    // zone,              local day,  cron,             fires, day length
    "America/New_York,    2026-03-08, 0 */30 * * * ?,   46,    PT23H",
    "America/New_York,    2026-11-01, 0 */30 * * * ?,   50,    PT25H",
    "America/New_York,    2026-03-08, 0 */10 * * * ?,   138,   PT23H",
    "America/New_York,    2026-11-01, 0 */10 * * * ?,   150,   PT25H",
    "America/New_York,    2026-03-08, 0 0 * * * ?,      23,    PT23H",
    "America/New_York,    2026-11-01, 0 0 * * * ?,      25,    PT25H",
    "America/New_York,    2026-06-15, 0 */30 * * * ?,   48,    PT24H",
    "Europe/London,       2026-03-29, 0 */30 * * * ?,   46,    PT23H",
    "Europe/London,       2026-10-25, 0 */30 * * * ?,   50,    PT25H",
    "Europe/London,       2026-03-29, 0 */10 * * * ?,   138,   PT23H",
    "Europe/London,       2026-10-25, 0 */10 * * * ?,   150,   PT25H",
    // Lord Howe moves by 30 minutes: one half-hour slot is lost or repeated.
    "Australia/Lord_Howe, 2026-10-04, 0 */30 * * * ?,   47,    PT23H30M",
    "Australia/Lord_Howe, 2026-04-05, 0 */30 * * * ?,   49,    PT24H30M",
    "Australia/Lord_Howe, 2026-10-04, 0 */10 * * * ?,   141,   PT23H30M",
    "Australia/Lord_Howe, 2026-04-05, 0 */10 * * * ?,   147,   PT24H30M",
    // Hourly at :00 in Lord Howe: 02:00 is shifted to 02:30, and no :00 falls into the repeat.
    "Australia/Lord_Howe, 2026-10-04, 0 0 * * * ?,      24,    PT23H30M",
    "Australia/Lord_Howe, 2026-04-05, 0 0 * * * ?,      24,    PT24H30M",
    "Asia/Shanghai,       2026-03-08, 0 */30 * * * ?,   48,    PT24H",
    "Asia/Shanghai,       2026-11-01, 0 */30 * * * ?,   48,    PT24H",
    "Asia/Shanghai,       2026-03-08, 0 */10 * * * ?,   144,   PT24H",
    "Asia/Shanghai,       2026-11-01, 0 */10 * * * ?,   144,   PT24H",
    // The hour field decides, not the frequency: 0-23 is every hour, 0-22 is not.
    "America/New_York,    2026-11-01, 0 0 0-23 * * ?,   25,    PT25H",
    "America/New_York,    2026-11-01, 0 0 0-22 * * ?,   23,    PT25H",
    "America/New_York,    2026-11-01, 0 0/10 1 * * ?,   6,     PT25H",
    "America/New_York,    2026-03-08, 0 0/10 2 * * ?,   1,     PT23H",
    // Nuuk's gap ends the day: 23:00 and 23:30 are one fire at 22:59:59, still on 03-28.
    "America/Nuuk,        2026-03-28, 0 */30 * * * ?,   47,    PT23H",
    "America/Nuuk,        2026-03-29, 0 */30 * * * ?,   48,    PT24H",
  })
  void sub_daily_schedules_have_the_documented_number_of_fires_on_dst_days(
      String zone, LocalDate day, String cron, int fires, Duration dayLength) {
    CronSchedule schedule = CronSchedule.parse(cron, ZoneId.of(zone));

    List<Instant> instants =
        firesOnLocalDay(schedule, day).stream().map(FireTime::instant).toList();

    assertThat(instants).hasSize(fires).doesNotHaveDuplicates().isSorted();
    assertThat(WindowKind.DAILY.windowOf(instants.get(0), ZoneId.of(zone)).length())
        .isEqualTo(dayLength);
  }

  @Test
  void every_30_minutes_in_new_york_fires_in_both_0100_hours_of_fall_back_in_instant_order() {
    CronSchedule schedule = CronSchedule.parse("0 */30 * * * ?", NEW_YORK);

    assertThat(
            schedule.fireTimesDetailed(
                Instant.parse("2026-11-01T04:00:00Z"), Instant.parse("2026-11-01T07:00:00Z"), 100))
        .containsExactly(
            fire("2026-11-01T04:30:00Z", "2026-11-01T00:30", DstAdjustment.NONE),
            fire("2026-11-01T05:00:00Z", "2026-11-01T01:00", DstAdjustment.FIRST_OF_REPEATED),
            fire("2026-11-01T05:30:00Z", "2026-11-01T01:30", DstAdjustment.FIRST_OF_REPEATED),
            fire("2026-11-01T06:00:00Z", "2026-11-01T01:00", DstAdjustment.SECOND_OF_REPEATED),
            fire("2026-11-01T06:30:00Z", "2026-11-01T01:30", DstAdjustment.SECOND_OF_REPEATED),
            fire("2026-11-01T07:00:00Z", "2026-11-01T02:00", DstAdjustment.NONE));
  }

  @Test
  void every_10_minutes_in_new_york_merges_the_whole_spring_gap_into_one_fire_at_0300_edt() {
    CronSchedule schedule = CronSchedule.parse("0 */10 * * * ?", NEW_YORK);

    assertThat(
            schedule.fireTimesDetailed(
                Instant.parse("2026-03-08T06:40:00Z"), Instant.parse("2026-03-08T07:20:00Z"), 100))
        .containsExactly(
            fire("2026-03-08T06:50:00Z", "2026-03-08T01:50", DstAdjustment.NONE),
            // 02:00 .. 02:50 do not exist; they and 03:00 itself are one fire at 03:00 EDT.
            fire("2026-03-08T07:00:00Z", "2026-03-08T02:00", DstAdjustment.SHIFTED_OUT_OF_GAP),
            fire("2026-03-08T07:10:00Z", "2026-03-08T03:10", DstAdjustment.NONE),
            fire("2026-03-08T07:20:00Z", "2026-03-08T03:20", DstAdjustment.NONE));
  }

  @Test
  void
      a_one_second_tick_ending_at_the_gap_instant_yields_the_shifted_fire_and_the_next_tick_nothing() {
    CronSchedule daily = CronSchedule.parse("0 30 2 * * ?", NEW_YORK);
    Instant gapEnd = Instant.parse("2026-03-08T07:00:00Z");

    assertThat(daily.fireTimesDetailed(gapEnd.minusSeconds(1), gapEnd, 10))
        .containsExactly(
            fire("2026-03-08T07:00:00Z", "2026-03-08T02:30", DstAdjustment.SHIFTED_OUT_OF_GAP));
    assertThat(daily.fireTimes(gapEnd, gapEnd.plusSeconds(1), 10)).isEmpty();
    assertThat(daily.nextAfter(gapEnd.minusSeconds(1))).contains(gapEnd);
  }

  @ParameterizedTest(name = "''{1}'' in {0} around {2}: one-minute ticks add up to one call")
  @CsvSource({
    "America/New_York,    0 30 2 * * ?,   2026-03-08",
    "America/New_York,    0 */10 * * * ?, 2026-03-08",
    "America/New_York,    0 */30 * * * ?, 2026-11-01",
    "America/New_York,    0 30 1 * * ?,   2026-11-01",
    "Europe/London,       0 */30 * * * ?, 2026-03-29",
    "Europe/London,       0 */30 * * * ?, 2026-10-25",
    "Australia/Lord_Howe, 0 15 2 * * ?,   2026-10-04",
    "Australia/Lord_Howe, 0 */10 * * * ?, 2026-04-05",
    "America/Santiago,    0 0 0 * * ?,    2026-09-06",
    "America/Nuuk,        0 30 23 * * ?,  2026-03-28",
    "America/Nuuk,        0 */30 * * * ?, 2026-03-28",
  })
  void consecutive_one_minute_ticks_give_the_same_fires_as_one_call_over_the_dst_day(
      String zone, String cron, LocalDate day) {
    CronSchedule schedule = CronSchedule.parse(cron, ZoneId.of(zone));
    // Ticks end at hh:mm:59, so each one starts its search exactly on a whole minute, where every
    // transition (and so every gap end) falls.
    Instant from = day.atStartOfDay(schedule.zone()).toInstant().minusSeconds(3601);
    Instant upTo = from.plusSeconds(27 * 3600);

    List<FireTime> ticked = new ArrayList<>();
    for (Instant t = from; t.isBefore(upTo); t = t.plusSeconds(60)) {
      ticked.addAll(schedule.fireTimesDetailed(t, t.plusSeconds(60), 100));
    }

    assertThat(ticked)
        .isNotEmpty()
        .isEqualTo(schedule.fireTimesDetailed(from, upTo, Integer.MAX_VALUE));
  }

  @Test
  void a_specific_hour_list_fires_only_at_the_first_occurrence_of_the_repeated_hour() {
    CronSchedule schedule = CronSchedule.parse("0 0,30 1 * * ?", NEW_YORK);

    assertThat(
            schedule.fireTimes(
                Instant.parse("2026-11-01T00:00:00Z"), Instant.parse("2026-11-02T00:00:00Z"), 100))
        .containsExactly(
            Instant.parse("2026-11-01T05:00:00Z"), Instant.parse("2026-11-01T05:30:00Z"));
  }

  @Test
  void
      nextAfter_from_inside_the_first_repeated_hour_finds_the_second_occurrence_of_an_earlier_wall_time() {
    CronSchedule schedule = CronSchedule.parse("0 */30 * * * ?", NEW_YORK);

    // 05:40Z is 01:40 EDT; the next fire is the second 01:00 (EST), a smaller wall-clock time.
    assertThat(schedule.nextAfter(Instant.parse("2026-11-01T05:40:00Z")))
        .contains(Instant.parse("2026-11-01T06:00:00Z"));
  }

  @Test
  void nextAfter_the_gap_instant_does_not_repeat_it() {
    CronSchedule schedule = CronSchedule.parse("0 */30 * * * ?", NEW_YORK);

    assertThat(schedule.nextAfter(Instant.parse("2026-03-08T06:30:00Z")))
        .contains(Instant.parse("2026-03-08T07:00:00Z"));
    assertThat(schedule.nextAfter(Instant.parse("2026-03-08T07:00:00Z")))
        .contains(Instant.parse("2026-03-08T07:30:00Z"));
  }

  @Test
  void lord_howe_hourly_0200_shifts_to_0230_daylight_time_on_its_spring_forward_day() {
    CronSchedule schedule = CronSchedule.parse("0 0 * * * ?", LORD_HOWE);

    assertThat(
            schedule.fireTimesDetailed(
                Instant.parse("2026-10-03T14:29:59Z"), Instant.parse("2026-10-03T17:00:00Z"), 100))
        .containsExactly(
            fire("2026-10-03T14:30:00Z", "2026-10-04T01:00", DstAdjustment.NONE), // +10:30
            fire(
                "2026-10-03T15:30:00Z",
                "2026-10-04T02:00",
                DstAdjustment.SHIFTED_OUT_OF_GAP), // 02:30 +11:00
            fire("2026-10-03T16:00:00Z", "2026-10-04T03:00", DstAdjustment.NONE),
            fire("2026-10-03T17:00:00Z", "2026-10-04T04:00", DstAdjustment.NONE));
  }

  @ParameterizedTest(name = "''{1}'' in {0} over 2026 is strictly ascending with {2} fires")
  @CsvSource({
    "America/New_York,    0 */10 * * * ?, 52560",
    "Europe/London,       0 */30 * * * ?, 17520",
    "Australia/Lord_Howe, 0 */10 * * * ?, 52560",
    "Asia/Shanghai,       0 */30 * * * ?, 17520",
    "America/New_York,    0 30 2 * * ?,   365",
    "Europe/London,       0 30 1 * * ?,   365",
  })
  void a_year_of_fire_times_is_strictly_ascending_and_losses_and_repeats_balance(
      String zone, String cron, int fires) {
    ZoneId zoneId = ZoneId.of(zone);
    CronSchedule schedule = CronSchedule.parse(cron, zoneId);
    Instant yearStart = LocalDate.of(2026, 1, 1).atStartOfDay(zoneId).toInstant();
    Instant yearEnd = LocalDate.of(2027, 1, 1).atStartOfDay(zoneId).toInstant();

    List<Instant> year =
        schedule.fireTimes(yearStart.minusSeconds(1), yearEnd.minusSeconds(1), Integer.MAX_VALUE);

    assertThat(year).hasSize(fires);
    for (int i = 1; i < year.size(); i++) {
      assertThat(year.get(i)).isAfter(year.get(i - 1));
    }
  }

  private static FireTime fire(String instant, String nominal, DstAdjustment adjustment) {
    return new FireTime(Instant.parse(instant), LocalDateTime.parse(nominal), adjustment);
  }
}
