package dev.carillon.model.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ZoneWarningsTest {

  @ParameterizedTest(name = "{0} is warned about")
  @ValueSource(strings = {"+08:00", "-05:00", "UTC+8", "GMT-05:00", "UT+05:30", "+14"})
  void a_zone_written_as_an_offset_gets_a_warning_naming_field_and_value(String text) {
    ZoneId zone = ZoneId.of(text);

    assertThat(ZoneWarnings.of("schedule.zone", zone))
        .hasValueSatisfying(
            w ->
                assertThat(w)
                    .startsWith("schedule.zone '" + zone.getId() + "' is a fixed UTC offset")
                    .contains("never observes daylight saving time"));
  }

  @ParameterizedTest(name = "{0} is not warned about")
  @ValueSource(
      strings = {
        "Asia/Shanghai",
        "America/New_York",
        "UTC",
        "Etc/UTC",
        "Z",
        "+00:00",
        "GMT",
        "Etc/GMT-8",
        "Asia/Kolkata"
      })
  void regions_utc_and_the_databases_own_fixed_zones_get_none(String text) {
    assertThat(ZoneWarnings.of("schedule.zone", ZoneId.of(text))).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"+08:00", "UTC+8"})
  void a_fixed_offset_is_still_accepted_by_a_schedule_and_never_moves(String text) {
    CronSchedule daily = CronSchedule.parse("0 30 2 * * ?", ZoneId.of(text));

    // 02:30 at +08:00 is 18:30Z the day before, in January and in July alike.
    assertThat(
            daily.fireTimes(
                Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-01-02T00:00:00Z"), 5))
        .containsExactly(Instant.parse("2026-01-01T18:30:00Z"));
    assertThat(
            daily.fireTimes(
                Instant.parse("2026-07-01T00:00:00Z"), Instant.parse("2026-07-02T00:00:00Z"), 5))
        .containsExactly(Instant.parse("2026-07-01T18:30:00Z"));
  }
}
