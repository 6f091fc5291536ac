package dev.carillon.model.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.schedule.OracleComparison.Report;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Every zone of the JVM's tzdb with a transition from 2026 to 2036, every expression of {@link
 * OracleExpression#standardSet()}: Carillon's fire times and windows equal {@link DstOracle}'s.
 *
 * <p>Zone ids with equal rules (links such as {@code US/Eastern} and {@code America/New_York}) give
 * equal fire times and windows, so each set of rules is walked once. Every 5 minutes is compared
 * around the transitions of 2026 and 2027 only (a zone's later transitions repeat their shapes),
 * which keeps the build's run to seconds. {@code -Dcarillon.oracle.sweep=full} adds a sweep of
 * every transition from 1970 to 2099 (the years Quartz expressions cover), every expression
 * everywhere; it takes minutes and is not part of the build.
 */
class CronScheduleOraclePropertyTest {

  @Test
  void carillon_agrees_with_the_oracle_in_every_zone_with_a_transition_from_2026_to_2036() {
    Report report = sweep(2026, 2036, LocalDate.of(2028, 1, 1));

    assertThat(report.zones()).isGreaterThan(100);
    assertThat(report.transitions()).isGreaterThan(1000);
    assertThat(report.examples()).isEmpty();
    assertThat(report.disagreements()).isZero();
  }

  @Test
  @EnabledIfSystemProperty(named = "carillon.oracle.sweep", matches = "full")
  @Timeout(value = 3, unit = TimeUnit.HOURS)
  void full_sweep_carillon_agrees_with_the_oracle_from_1970_to_2099() {
    Report report = sweep(1970, 2099, LocalDate.MAX);

    assertThat(report.examples()).isEmpty();
    assertThat(report.disagreements()).isZero();
  }

  /** Compares every zone with a transition in the years {@code first..last} and prints counts. */
  private static Report sweep(int first, int last, LocalDate denseUntil) {
    Instant from = LocalDate.of(first, 1, 1).atStartOfDay(ZoneOffset.UTC).toInstant();
    Instant to = LocalDate.of(last + 1, 1, 1).atStartOfDay(ZoneOffset.UTC).toInstant();
    List<OracleExpression> expressions = OracleExpression.standardSet();
    Map<ZoneRules, List<ZoneId>> zonesByRules = new LinkedHashMap<>();
    for (String id : new TreeSet<>(ZoneId.getAvailableZoneIds())) {
      ZoneId zone = ZoneId.of(id);
      if (!OracleComparison.transitions(zone.getRules(), from, to).isEmpty()) {
        zonesByRules.computeIfAbsent(zone.getRules(), r -> new ArrayList<>()).add(zone);
      }
    }
    long started = System.nanoTime();

    Report report =
        zonesByRules.values().parallelStream()
            .map(
                zones ->
                    OracleComparison.compare(
                        zones.get(0),
                        zones.size(),
                        from,
                        to,
                        denseUntil,
                        expressions,
                        OracleComparison.CARILLON,
                        OracleComparison.CARILLON_WINDOWS))
            .reduce(Report.EMPTY, Report::plus);

    System.out.printf(
        "DST oracle %d..%d: zones=%d (rule sets walked=%d), transitions=%d, expressions=%d,"
            + " fires compared=%d, windows compared=%d, disagreements=%d (%d s)%n",
        first,
        last,
        report.zones(),
        report.ruleSets(),
        report.transitions(),
        expressions.size(),
        report.fires(),
        report.windows(),
        report.disagreements(),
        Duration.ofNanos(System.nanoTime() - started).toSeconds());
    report.examples().forEach(System.out::println);
    if (!report.zonesDisagreeing().isEmpty()) {
      System.out.println("zones with disagreements: " + report.zonesDisagreeing());
    }
    return report;
  }
}
