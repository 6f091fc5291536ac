package dev.carillon.model.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WindowKindTest {
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
  private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

  @ParameterizedTest(name = "{0} of {1} in {2} is {3} [{4}, {5})")
  @CsvSource({
    // kind,   fire time,            zone,             key,                  start,
    // end
    "DAILY,    2026-11-29T13:00:00Z, America/New_York, 2026-11-29,           2026-11-29T05:00:00Z, 2026-11-30T05:00:00Z",
    "DAILY,    2026-11-28T23:00:00Z, Asia/Shanghai,    2026-11-29,           2026-11-28T16:00:00Z, 2026-11-29T16:00:00Z",
    "HOURLY,   2026-11-29T13:15:00Z, America/New_York, 2026-11-29T08-05:00,  2026-11-29T13:00:00Z, 2026-11-29T14:00:00Z",
    "HOURLY,   2026-11-29T13:15:00Z, UTC,              2026-11-29T13+00:00,  2026-11-29T13:00:00Z, 2026-11-29T14:00:00Z",
    "HOURLY,   2026-11-29T13:15:00Z, Asia/Kolkata,     2026-11-29T18+05:30,  2026-11-29T12:30:00Z, 2026-11-29T13:30:00Z",
    "WEEKLY,   2026-11-29T13:00:00Z, America/New_York, 2026-W48,             2026-11-23T05:00:00Z, 2026-11-30T05:00:00Z",
    "MONTHLY,  2026-11-29T13:00:00Z, America/New_York, 2026-11,              2026-11-01T04:00:00Z, 2026-12-01T05:00:00Z",
    "MONTHLY,  2026-11-30T16:30:00Z, Asia/Shanghai,    2026-12,              2026-11-30T16:00:00Z, 2026-12-31T16:00:00Z",
    "EVERY_FIRE, 2026-11-29T08:00:00Z, Asia/Shanghai,  2026-11-29T08:00:00Z, 2026-11-29T08:00:00Z, 2026-11-29T08:00:00Z",
  })
  void each_kind_has_its_documented_key_and_window(
      WindowKind kind, Instant fire, String zone, String key, Instant start, Instant end) {
    Window window = kind.windowOf(fire, ZoneId.of(zone));

    assertThat(window).isEqualTo(new Window(key, start, end));
    assertThat(window.contains(fire)).isTrue();
  }

  @Test
  void the_repeated_hour_of_new_york_fall_back_gets_two_hourly_keys_and_two_windows() {
    Window first = WindowKind.HOURLY.windowOf(Instant.parse("2026-11-01T05:30:00Z"), NEW_YORK);
    Window second = WindowKind.HOURLY.windowOf(Instant.parse("2026-11-01T06:30:00Z"), NEW_YORK);

    assertThat(first)
        .isEqualTo(
            new Window(
                "2026-11-01T01-04:00",
                Instant.parse("2026-11-01T05:00:00Z"),
                Instant.parse("2026-11-01T06:00:00Z")));
    assertThat(second)
        .isEqualTo(
            new Window(
                "2026-11-01T01-05:00",
                Instant.parse("2026-11-01T06:00:00Z"),
                Instant.parse("2026-11-01T07:00:00Z")));
  }

  @Test
  void a_new_york_fall_back_day_has_25_distinct_hourly_windows_that_tile_the_day() {
    Map<String, Window> windows = new LinkedHashMap<>();
    Instant dayStart = Instant.parse("2026-11-01T04:00:00Z");
    Instant dayEnd = Instant.parse("2026-11-02T05:00:00Z");
    for (Instant t = dayStart; t.isBefore(dayEnd); t = t.plusSeconds(600)) {
      Window w = WindowKind.HOURLY.windowOf(t, NEW_YORK);
      windows.putIfAbsent(w.key(), w);
    }

    assertThat(windows).hasSize(25);
    assertThat(windows.values()).allMatch(w -> w.length().equals(Duration.ofHours(1)));
    assertThat(windows.values().iterator().next().start()).isEqualTo(dayStart);
  }

  @Test
  void lord_howe_hourly_windows_are_cut_to_30_minutes_where_the_clock_moves_by_30_minutes() {
    ZoneId lordHowe = ZoneId.of("Australia/Lord_Howe");

    // Fall back 2026-04-05 02:00 +11:00 -> 01:30 +10:30: the +10:30 hour 01 holds 01:30..02:00.
    assertThat(WindowKind.HOURLY.windowOf(Instant.parse("2026-04-04T15:10:00Z"), lordHowe))
        .isEqualTo(
            new Window(
                "2026-04-05T01+10:30",
                Instant.parse("2026-04-04T15:00:00Z"),
                Instant.parse("2026-04-04T15:30:00Z")));
    assertThat(WindowKind.HOURLY.windowOf(Instant.parse("2026-04-04T14:10:00Z"), lordHowe))
        .isEqualTo(
            new Window(
                "2026-04-05T01+11:00",
                Instant.parse("2026-04-04T14:00:00Z"),
                Instant.parse("2026-04-04T15:00:00Z")));
    // Spring forward 2026-10-04 02:00 +10:30 -> 02:30 +11:00: hour 02 holds only 02:30..03:00.
    assertThat(WindowKind.HOURLY.windowOf(Instant.parse("2026-10-03T15:40:00Z"), lordHowe))
        .isEqualTo(
            new Window(
                "2026-10-04T02+11:00",
                Instant.parse("2026-10-03T15:30:00Z"),
                Instant.parse("2026-10-03T16:00:00Z")));
  }

  @ParameterizedTest(name = "the New York day {0} lasts {3}")
  @CsvSource({
    "2026-03-08T12:00:00Z, 2026-03-08T05:00:00Z, 2026-03-09T04:00:00Z, PT23H",
    "2026-11-01T12:00:00Z, 2026-11-01T04:00:00Z, 2026-11-02T05:00:00Z, PT25H",
    "2026-06-15T12:00:00Z, 2026-06-15T04:00:00Z, 2026-06-16T04:00:00Z, PT24H",
  })
  void daily_windows_on_dst_days_start_and_end_at_local_midnight(
      Instant fire, Instant start, Instant end, Duration length) {
    Window day = WindowKind.DAILY.windowOf(fire, NEW_YORK);

    assertThat(day.start()).isEqualTo(start);
    assertThat(day.end()).isEqualTo(end);
    assertThat(day.length()).isEqualTo(length);
  }

  @Test
  void a_daily_window_starts_at_0100_where_midnight_falls_into_the_gap() {
    // America/Santiago jumps from 00:00 -04:00 to 01:00 -03:00 on 2026-09-06.
    Window day =
        WindowKind.DAILY.windowOf(
            Instant.parse("2026-09-06T12:00:00Z"), ZoneId.of("America/Santiago"));

    assertThat(day)
        .isEqualTo(
            new Window(
                "2026-09-06",
                Instant.parse("2026-09-06T04:00:00Z"),
                Instant.parse("2026-09-07T03:00:00Z")));
    assertThat(day.length()).isEqualTo(Duration.ofHours(23));
  }

  @ParameterizedTest(name = "{0} in Shanghai is in {1}")
  @CsvSource({
    "2026-12-31T04:00:00Z, 2026-W53, 2026-12-27T16:00:00Z", // Thursday
    "2027-01-03T04:00:00Z, 2026-W53, 2026-12-27T16:00:00Z", // Sunday of the same week
    "2027-01-03T16:00:00Z, 2027-W01, 2027-01-03T16:00:00Z", // Monday 00:00 local
    "2024-12-30T04:00:00Z, 2025-W01, 2024-12-29T16:00:00Z", // Monday before new year
    "2026-01-01T04:00:00Z, 2026-W01, 2025-12-28T16:00:00Z",
  })
  void weekly_keys_use_the_iso_week_based_year_around_new_year(
      Instant fire, String key, Instant monday) {
    Window week = WindowKind.WEEKLY.windowOf(fire, SHANGHAI);

    assertThat(week.key()).isEqualTo(key);
    assertThat(week.start()).isEqualTo(monday);
    assertThat(week.length()).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void a_weekly_window_containing_spring_forward_is_one_hour_short() {
    Window week = WindowKind.WEEKLY.windowOf(Instant.parse("2026-03-08T12:00:00Z"), NEW_YORK);

    assertThat(week.key()).isEqualTo("2026-W10");
    assertThat(week.length()).isEqualTo(Duration.ofDays(7).minusHours(1));
  }

  @Test
  void an_every_fire_window_is_zero_length_and_contains_only_its_fire_time() {
    Instant fire = Instant.parse("2026-11-29T08:00:00Z");
    Window window = WindowKind.EVERY_FIRE.windowOf(fire, NEW_YORK);

    assertThat(window.key()).isEqualTo("2026-11-29T08:00:00Z");
    assertThat(window.length()).isZero();
    assertThat(window.contains(fire)).isTrue();
    assertThat(window.contains(fire.plusNanos(1))).isFalse();
    assertThat(window.contains(fire.minusNanos(1))).isFalse();
  }

  @ParameterizedTest(name = "{0} windows in {1} contain their fire and never overlap")
  @CsvSource({
    "DAILY, America/New_York",
    "HOURLY, America/New_York",
    "HOURLY, Australia/Lord_Howe",
    "WEEKLY, Europe/London",
    "MONTHLY, Australia/Lord_Howe",
    "HOURLY, America/Santiago",
    "DAILY, America/Santiago",
  })
  void windows_contain_their_fire_time_and_consecutive_windows_never_overlap(
      WindowKind kind, ZoneId zone) {
    Window previous = null;
    for (Instant t = Instant.parse("2026-01-01T00:00:00Z");
        t.isBefore(Instant.parse("2027-01-01T00:00:00Z"));
        t = t.plusSeconds(600)) {
      Window window = kind.windowOf(t, zone);
      assertThat(window.contains(t)).as("%s contains %s", window, t).isTrue();
      if (previous != null && !previous.key().equals(window.key())) {
        assertThat(window.start()).as("%s after %s", window, previous).isEqualTo(previous.end());
      }
      previous = window;
    }
  }
}
