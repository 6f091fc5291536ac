package dev.carillon.model.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The oracle itself, against facts worked out by hand from the zones' published rules, so that the
 * property test compares Carillon with something known to be right.
 */
class DstOracleTest {
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

  @ParameterizedTest(name = "{0} {2} on {1}: {3} ({4})")
  @CsvSource({
    // zone,              nominal date, time, the one fire,          adjustment
    "America/New_York,    2026-03-08,   02:30, 2026-03-08T07:00:00Z, SHIFTED_OUT_OF_GAP",
    "America/New_York,    2026-11-01,   01:30, 2026-11-01T05:30:00Z, FIRST_OF_REPEATED",
    "America/New_York,    2026-11-01,   02:30, 2026-11-01T07:30:00Z, NONE",
    "Australia/Lord_Howe, 2026-10-04,   02:15, 2026-10-03T15:30:00Z, SHIFTED_OUT_OF_GAP",
    "America/Santiago,    2026-09-06,   00:00, 2026-09-06T04:00:00Z, SHIFTED_OUT_OF_GAP",
    "America/Nuuk,        2026-03-28,   23:30, 2026-03-29T00:59:59Z, SHIFTED_OUT_OF_GAP",
    "America/Nuuk,        2026-03-29,   00:00, 2026-03-29T01:00:00Z, NONE",
  })
  void a_daily_time_has_one_fire_on_a_transition_day_where_the_policy_puts_it(
      String zone, LocalDate date, String time, Instant at, DstAdjustment adjustment) {
    String[] hm = time.split(":");
    OracleExpression daily =
        OracleExpression.daily(Integer.parseInt(hm[0]), Integer.parseInt(hm[1]));

    assertThat(DstOracle.fires(daily, ZoneId.of(zone), date, date).values())
        .containsExactly(
            new FireTime(at, LocalDateTime.of(date, LocalTime.parse(time)), adjustment));
  }

  @ParameterizedTest(name = "every {1} minutes in {0} on {2}: {3} fires")
  @CsvSource({
    "America/New_York,    30, 2026-03-08, 46",
    "America/New_York,    30, 2026-11-01, 50",
    "America/New_York,    5,  2026-11-01, 300",
    "Australia/Lord_Howe, 30, 2026-10-04, 47",
    "Australia/Lord_Howe, 30, 2026-04-05, 49",
    "Asia/Shanghai,       30, 2026-11-01, 48",
  })
  void sub_hourly_expressions_lose_a_gap_and_repeat_an_overlap(
      String zone, int step, LocalDate date, int fires) {
    assertThat(DstOracle.fires(OracleExpression.everyMinutes(step), ZoneId.of(zone), date, date))
        .hasSize(fires);
  }

  @Test
  void a_repeated_time_fires_twice_only_when_the_hour_field_matches_every_hour() {
    LocalDate fallBack = LocalDate.parse("2026-11-01");

    assertThat(DstOracle.fires(OracleExpression.daily(1, 0), NEW_YORK, fallBack, fallBack).keySet())
        .containsExactly(Instant.parse("2026-11-01T05:00:00Z"));
    assertThat(
            DstOracle.fires(OracleExpression.hourly(), NEW_YORK, fallBack, fallBack)
                .subMap(
                    Instant.parse("2026-11-01T05:00:00Z"), Instant.parse("2026-11-01T07:00:01Z"))
                .values())
        .extracting(FireTime::adjustment)
        .containsExactly(
            DstAdjustment.FIRST_OF_REPEATED, DstAdjustment.SECOND_OF_REPEATED, DstAdjustment.NONE);
  }

  @Test
  void day_of_month_fields_match_only_the_days_that_exist() {
    LocalDate from = LocalDate.parse("2026-01-01");
    LocalDate to = LocalDate.parse("2028-12-31");
    ZoneId utc = ZoneId.of("UTC");

    assertThat(DstOracle.fires(OracleExpression.monthlyOn31st(2, 30), utc, from, to))
        .hasSize(3 * 7);
    assertThat(DstOracle.fires(OracleExpression.lastDayOfMonth(2, 30), utc, from, to))
        .hasSize(3 * 12);
    assertThat(DstOracle.fires(OracleExpression.yearlyOn29February(2, 30), utc, from, to).keySet())
        .containsExactly(Instant.parse("2028-02-29T02:30:00Z"));
  }

  @ParameterizedTest(name = "{0} window of {1} in {2} is {3} [{4}, {5})")
  @CsvSource({
    "DAILY,   2026-11-01T12:00:00Z, America/New_York, 2026-11-01,          2026-11-01T04:00:00Z, 2026-11-02T05:00:00Z",
    "DAILY,   2026-09-06T12:00:00Z, America/Santiago, 2026-09-06,          2026-09-06T04:00:00Z, 2026-09-07T03:00:00Z",
    "DAILY,   2026-03-29T00:59:59Z, America/Nuuk,     2026-03-28,          2026-03-28T02:00:00Z, 2026-03-29T01:00:00Z",
    "HOURLY,  2026-11-01T06:30:00Z, America/New_York, 2026-11-01T01-05:00, 2026-11-01T06:00:00Z, 2026-11-01T07:00:00Z",
    "HOURLY,  2026-04-04T15:10:00Z, Australia/Lord_Howe, 2026-04-05T01+10:30, 2026-04-04T15:00:00Z, 2026-04-04T15:30:00Z",
    "WEEKLY,  2026-03-08T12:00:00Z, America/New_York, 2026-W10,            2026-03-02T05:00:00Z, 2026-03-09T04:00:00Z",
    "MONTHLY, 2026-11-29T13:00:00Z, America/New_York, 2026-11,             2026-11-01T04:00:00Z, 2026-12-01T05:00:00Z",
  })
  void a_window_is_every_instant_that_shares_the_fire_s_key(
      WindowKind kind, Instant fire, String zone, String key, Instant start, Instant end) {
    assertThat(DstOracle.window(kind, fire, ZoneId.of(zone)))
        .isEqualTo(new Window(key, start, end));
  }
}
