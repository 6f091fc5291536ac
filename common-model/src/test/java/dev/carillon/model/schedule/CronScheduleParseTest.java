package dev.carillon.model.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.task.Problem;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class CronScheduleParseTest {
  private static final ZoneId SHANGHAI = ZoneId.of("Asia/Shanghai");

  @Test
  void a_valid_expression_keeps_its_text_and_zone() {
    CronSchedule schedule = CronSchedule.parse("0 0 8 * * ?", SHANGHAI);

    assertThat(schedule.expression()).isEqualTo("0 0 8 * * ?");
    assertThat(schedule.zone()).isEqualTo(SHANGHAI);
  }

  @Test
  void surrounding_blanks_are_ignored_but_the_text_is_kept_as_given() {
    CronSchedule schedule = CronSchedule.parse("  0 0 8 * * ?  ", SHANGHAI);

    assertThat(schedule.expression()).isEqualTo("  0 0 8 * * ?  ");
    assertThat(schedule.nextAfter(Instant.parse("2026-11-29T00:00:00Z")))
        .contains(Instant.parse("2026-11-30T00:00:00Z"));
  }

  @ParameterizedTest(name = "''{0}'' is rejected because of ''{1}''")
  @CsvSource(
      delimiter = '|',
      value = {
        "bogus                 | contains 1 parts but we expect one of [6, 7]",
        "0 0 25 * * ?          | Value 25 not in range [0, 23]",
        "0 61 8 * * ?          | Value 61 not in range [0, 59]",
        "0 0 8 * * *           | Both, a day-of-week AND a day-of-month parameter, are not supported",
        "0 0 8 1 * MON         | Both, a day-of-week AND a day-of-month parameter, are not supported",
        "0 0 8 * * ? 1969      | Value 1969 not in range [1970, 2099]",
      })
  void invalid_text_is_reported_as_schedule_cron_with_the_value_and_cron_utils_reason(
      String text, String reason) {
    assertThatThrownBy(() -> CronSchedule.parse(text, SHANGHAI))
        .isInstanceOf(InvalidValueException.class)
        .extracting(e -> ((InvalidValueException) e).problem(), type(Problem.class))
        .satisfies(
            problem -> {
              assertThat(problem.field()).isEqualTo("schedule.cron");
              assertThat(problem.value()).isEqualTo(text);
              assertThat(problem.message())
                  .startsWith("is not a valid Quartz cron expression")
                  .contains(reason);
            });
  }

  @ParameterizedTest(name = "''{0}'' gets the hint ''{1}''")
  @CsvSource(
      delimiter = '|',
      value = {
        "0 8 * * *       | for a Unix '0 8 * * *' write '0 0 8 * * ?'",
        "*/15 * * * *    | write '0 */15 * * * ?'",
        "30 2 1 * *      | write '0 30 2 1 * ?'",
        "0 9 * * 1-5     | write '0 0 9 ? * 1-5'; Quartz numbers weekdays 1-7 from Sunday",
        "0 9 * * MON-FRI | write '0 0 9 ? * MON-FRI'",
      })
  void a_five_field_unix_expression_is_refused_with_the_seconds_field_hint(
      String text, String hint) {
    assertThatThrownBy(() -> CronSchedule.parse(text, SHANGHAI))
        .isInstanceOf(InvalidValueException.class)
        .extracting(e -> ((InvalidValueException) e).problem(), type(Problem.class))
        .satisfies(
            problem -> {
              assertThat(problem.field()).isEqualTo("schedule.cron");
              assertThat(problem.value()).isEqualTo(text);
              assertThat(problem.message())
                  .startsWith("has 5 fields, but Carillon's cron starts with a seconds field")
                  .contains(hint);
            });
    // The suggestion itself parses.
    String suggested = hint.replaceAll(".*write '([^']*)'.*", "$1");
    assertThat(CronSchedule.parse(suggested, SHANGHAI).expression()).isEqualTo(suggested);
  }

  @ParameterizedTest(name = "''{0}'' is rejected")
  @NullAndEmptySource
  @ValueSource(strings = {"   "})
  void missing_text_is_reported_as_schedule_cron_is_required(String text) {
    assertThatThrownBy(() -> CronSchedule.parse(text, SHANGHAI))
        .isInstanceOf(InvalidValueException.class)
        .extracting(e -> ((InvalidValueException) e).problem(), type(Problem.class))
        .satisfies(
            problem -> {
              assertThat(problem.field()).isEqualTo("schedule.cron");
              assertThat(problem.value()).isEqualTo(text);
              assertThat(problem.message()).startsWith("is required");
            });
  }

  @ParameterizedTest(name = "''{0}'' never fires")
  @ValueSource(strings = {"0 0 0 30 2 ?", "0 0 0 31 4 ?", "0 0 12 31 11 ?", "0 0 0 29 2 ? 2097"})
  void an_expression_that_can_never_fire_is_rejected_with_a_clear_reason(String text) {
    assertThatThrownBy(() -> CronSchedule.parse(text, SHANGHAI))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("schedule.cron='" + text + "'")
        .hasMessageContaining("never fires");
  }

  @Test
  void a_date_that_exists_only_in_leap_years_is_accepted() {
    CronSchedule schedule = CronSchedule.parse("0 0 0 29 2 ?", SHANGHAI);

    assertThat(schedule.nextAfter(Instant.parse("2026-01-01T00:00:00Z")))
        .contains(Instant.parse("2028-02-28T16:00:00Z"));
  }

  @Test
  void schedules_with_the_same_text_and_zone_are_equal() {
    CronSchedule a = CronSchedule.parse("0 0 8 * * ?", SHANGHAI);

    assertThat(a)
        .isEqualTo(CronSchedule.parse("0 0 8 * * ?", SHANGHAI))
        .hasSameHashCodeAs(CronSchedule.parse("0 0 8 * * ?", SHANGHAI))
        .isNotEqualTo(CronSchedule.parse("0 0 8 * * ?", ZoneId.of("UTC")))
        .isNotEqualTo(CronSchedule.parse("0 0 9 * * ?", SHANGHAI));
    assertThat(a).hasToString("CronSchedule[0 0 8 * * ? in Asia/Shanghai]");
  }
}
