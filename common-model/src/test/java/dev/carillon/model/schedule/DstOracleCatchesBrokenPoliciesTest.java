package dev.carillon.model.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.schedule.OracleComparison.FireSource;
import dev.carillon.model.schedule.OracleComparison.Report;
import dev.carillon.model.schedule.OracleComparison.WindowSource;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The comparison is not vacuous: a schedule or window that breaks the policy on purpose makes it
 * report disagreements, and exactly the ones the break causes.
 */
class DstOracleCatchesBrokenPoliciesTest {
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

  /** Carillon's fires, plus the second occurrence of every time it fired only once in a repeat. */
  private static final FireSource FIRES_A_REPEATED_HOUR_TWICE =
      (schedule, from, upTo) -> {
        List<FireTime> fires =
            new ArrayList<>(OracleComparison.CARILLON.fires(schedule, from, upTo));
        for (FireTime f : List.copyOf(fires)) {
          if (f.adjustment() == DstAdjustment.FIRST_OF_REPEATED) {
            ZoneOffset later =
                schedule.zone().getRules().getTransition(f.nominal()).getOffsetAfter();
            FireTime second =
                new FireTime(
                    f.nominal().toInstant(later), f.nominal(), DstAdjustment.SECOND_OF_REPEATED);
            if (!second.instant().isAfter(upTo) && !fires.contains(second)) {
              fires.add(second);
            }
          }
        }
        fires.sort(Comparator.comparing(FireTime::instant));
        return fires;
      };

  /** cron-utils' own zone handling: a time in a gap is dropped. */
  private static final FireSource DROPS_A_GAP =
      (schedule, from, upTo) ->
          OracleComparison.CARILLON.fires(schedule, from, upTo).stream()
              .filter(f -> f.adjustment() != DstAdjustment.SHIFTED_OUT_OF_GAP)
              .toList();

  /** A local day taken as 24 hours from midnight at the fire's own offset. */
  private static final WindowSource TWENTY_FOUR_HOUR_DAYS =
      (kind, fire, zone) -> {
        if (kind != WindowKind.DAILY) {
          return kind.windowOf(fire, zone);
        }
        ZoneOffset offset = zone.getRules().getOffset(fire);
        LocalDate date = fire.atOffset(offset).toLocalDate();
        return new Window(
            date.toString(),
            date.atStartOfDay().toInstant(offset),
            date.plusDays(1).atStartOfDay().toInstant(offset));
      };

  private static Report compareNewYork2026(FireSource fires, WindowSource windows) {
    return compareNewYork("2026-01-01", "2027-01-01", fires, windows);
  }

  /** Around New York's transitions in {@code [from, to)} and on the ordinary days. */
  private static Report compareNewYork(
      String from, String to, FireSource fires, WindowSource windows) {
    return OracleComparison.compare(
        NEW_YORK,
        1,
        LocalDate.parse(from).atStartOfDay(NEW_YORK).toInstant(),
        LocalDate.parse(to).atStartOfDay(NEW_YORK).toInstant(),
        LocalDate.MAX,
        OracleExpression.standardSet(),
        fires,
        windows);
  }

  @Test
  void carillon_itself_has_no_disagreement_in_new_york_2026() {
    Report report =
        compareNewYork2026(OracleComparison.CARILLON, OracleComparison.CARILLON_WINDOWS);

    assertThat(report.transitions()).isEqualTo(2);
    assertThat(report.fires()).isGreaterThan(1000);
    assertThat(report.examples()).isEmpty();
    assertThat(report.disagreements()).isZero();
  }

  @Test
  void a_schedule_that_fires_a_repeated_hour_twice_is_caught() {
    Report report =
        compareNewYork2026(FIRES_A_REPEATED_HOUR_TWICE, OracleComparison.CARILLON_WINDOWS);

    // 2026-11-01 is a Sunday: daily 01:00, daily 01:30 and weekly Sunday 01:30 each fire again an
    // hour later (every-hour expressions already fire twice, so they are unchanged). Each extra
    // fire is not in the oracle, and each gives its date a second fire for its one DAILY window.
    assertThat(report.examples())
        .containsExactlyInAnyOrder(
            "America/New_York '0 0 1 * * ?': fire not in the oracle: FireTime[instant=2026-11-01T06:00:00Z, nominal=2026-11-01T01:00, adjustment=SECOND_OF_REPEATED]",
            "America/New_York '0 0 1 * * ?': local date 2026-11-01 has 2 fires, not 1",
            "America/New_York '0 30 1 * * ?': fire not in the oracle: FireTime[instant=2026-11-01T06:30:00Z, nominal=2026-11-01T01:30, adjustment=SECOND_OF_REPEATED]",
            "America/New_York '0 30 1 * * ?': local date 2026-11-01 has 2 fires, not 1",
            "America/New_York '0 30 1 ? * SUN': fire not in the oracle: FireTime[instant=2026-11-01T06:30:00Z, nominal=2026-11-01T01:30, adjustment=SECOND_OF_REPEATED]",
            "America/New_York '0 30 1 ? * SUN': local date 2026-11-01 has 2 fires, not 1");
    assertThat(report.disagreements()).isEqualTo(6);
  }

  @Test
  void a_schedule_that_drops_a_time_in_the_gap_is_caught() {
    Report report = compareNewYork2026(DROPS_A_GAP, OracleComparison.CARILLON_WINDOWS);

    assertThat(report.examples())
        .contains(
            "America/New_York '0 30 2 * * ?': missing fire: FireTime[instant=2026-03-08T07:00:00Z, nominal=2026-03-08T02:30, adjustment=SHIFTED_OUT_OF_GAP]",
            "America/New_York '0 30 2 * * ?': local date 2026-03-08 has 0 fires, not 1");
    assertThat(report.disagreements()).isGreaterThan(0);
  }

  @ParameterizedTest(name = "around {0}")
  @CsvSource({"2026-03-01, 2026-04-01, 2026-03-08", "2026-10-15, 2026-11-15, 2026-11-01"})
  void daily_windows_of_24_hours_are_caught_on_a_transition_day_and_only_there(
      String from, String to, String transitionDay) {
    Report report = compareNewYork(from, to, OracleComparison.CARILLON, TWENTY_FOUR_HOUR_DAYS);

    assertThat(report.transitions()).isEqualTo(1);
    assertThat(report.disagreements()).isGreaterThan(0);
    assertThat(report.examples())
        .isNotEmpty()
        .allMatch(
            e -> e.contains("DAILY window") && e.contains(transitionDay), "on " + transitionDay);
  }
}
