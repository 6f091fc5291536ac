package dev.carillon.model.schedule;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Compares fire times and windows with {@link DstOracle} in one zone, over the local dates each of
 * its transitions in a period touches (a date or two) and a few ordinary days, and checks the
 * invariants the issue names: the fires and their windows equal the oracle's, no instant fires
 * twice, no two windows of a kind share a key, and an expression that names one time of day has
 * exactly one DAILY window on every local date it matches.
 *
 * <p>The fire and window sources are parameters so that a deliberately broken policy can be shown
 * to fail the comparison. Not thread-safe: use one instance per zone.
 */
final class OracleComparison {
  /** Where fire times come from: Carillon's {@link CronSchedule}, or a broken variant of it. */
  interface FireSource {
    List<FireTime> fires(CronSchedule schedule, Instant fromExclusive, Instant upToInclusive);
  }

  /** Where windows come from: Carillon's {@link WindowKind}, or a broken variant of it. */
  interface WindowSource {
    Window window(WindowKind kind, Instant fire, ZoneId zone);
  }

  static final FireSource CARILLON =
      (schedule, from, upTo) -> schedule.fireTimesDetailed(from, upTo, Integer.MAX_VALUE);
  static final WindowSource CARILLON_WINDOWS = (kind, fire, zone) -> kind.windowOf(fire, zone);

  /** More times a day than this make an expression dense (see {@link #compare}). */
  static final int DENSE = 48;

  /** At most this many disagreements are described; all are counted. */
  static final int EXAMPLES = 20;

  /**
   * Local days that hold no transition in most zones but test the day-of-month and leap-year fields
   * (31st, last day of a 28-, 29-, 30- and 31-day month, 29 February) and a new ISO week-based
   * year.
   */
  static final List<DayRange> ORDINARY_DAYS =
      List.of(
          DayRange.of("2026-01-31", "2026-01-31"),
          DayRange.of("2026-02-28", "2026-02-28"),
          DayRange.of("2026-04-30", "2026-04-30"),
          DayRange.of("2026-07-15", "2026-07-15"),
          DayRange.of("2027-01-03", "2027-01-04"),
          DayRange.of("2028-02-29", "2028-02-29"),
          DayRange.of("2029-02-28", "2029-02-28"),
          DayRange.of("2032-02-29", "2032-02-29"),
          DayRange.of("2036-02-29", "2036-02-29"));

  /** Local dates {@code first..last}, both included. */
  record DayRange(LocalDate first, LocalDate last) {
    static DayRange of(String first, String last) {
      return new DayRange(LocalDate.parse(first), LocalDate.parse(last));
    }
  }

  /**
   * What one comparison saw.
   *
   * @param zones zone ids covered (ids with equal rules are walked once)
   * @param ruleSets distinct zone rules walked
   * @param transitions transitions walked around
   * @param fires fire times compared
   * @param windows windows compared
   * @param disagreements every fire, window or invariant on which the sources and the oracle differ
   * @param examples the first {@link #EXAMPLES} disagreements, described
   * @param zonesDisagreeing the zones walked in which there was a disagreement
   */
  record Report(
      long zones,
      long ruleSets,
      long transitions,
      long fires,
      long windows,
      long disagreements,
      List<String> examples,
      Set<ZoneId> zonesDisagreeing) {
    static final Report EMPTY = new Report(0, 0, 0, 0, 0, 0, List.of(), Set.of());

    Report plus(Report o) {
      List<String> all = new ArrayList<>(examples);
      o.examples.stream().limit(Math.max(0, EXAMPLES - all.size())).forEach(all::add);
      Set<ZoneId> disagreeing = new TreeSet<>(Comparator.comparing(ZoneId::getId));
      disagreeing.addAll(zonesDisagreeing);
      disagreeing.addAll(o.zonesDisagreeing);
      return new Report(
          zones + o.zones,
          ruleSets + o.ruleSets,
          transitions + o.transitions,
          fires + o.fires,
          windows + o.windows,
          disagreements + o.disagreements,
          List.copyOf(all),
          Collections.unmodifiableSet(disagreeing));
    }
  }

  private final ZoneId zone;
  private final FireSource fireSource;
  private final WindowSource windowSource;
  private final Map<String, Window> oracleWindows = new HashMap<>();
  private final Map<String, Window> sourceWindows = new HashMap<>();
  private final Set<Instant> windowsChecked = new HashSet<>();
  private long fires;
  private long windows;
  private long disagreements;
  private final List<String> examples = new ArrayList<>();

  private OracleComparison(ZoneId zone, FireSource fireSource, WindowSource windowSource) {
    this.zone = zone;
    this.fireSource = fireSource;
    this.windowSource = windowSource;
  }

  /**
   * Compares the sources with the oracle in {@code zone} around every transition in {@code [from,
   * to)} and on {@link #ORDINARY_DAYS}.
   *
   * @param sharedBy how many zone ids have these rules (reported as zones)
   * @param denseUntil expressions that name more than {@value #DENSE} times a day are compared only
   *     on the days before this date, which keeps the comparison fast; later transitions of a zone
   *     repeat the shapes of its earlier ones
   */
  static Report compare(
      ZoneId zone,
      long sharedBy,
      Instant from,
      Instant to,
      LocalDate denseUntil,
      List<OracleExpression> expressions,
      FireSource fireSource,
      WindowSource windowSource) {
    List<ZoneOffsetTransition> transitions = transitions(zone.getRules(), from, to);
    List<DayRange> ranges = new ArrayList<>(ORDINARY_DAYS);
    for (ZoneOffsetTransition t : transitions) {
      LocalDate before = t.getDateTimeBefore().toLocalDate();
      LocalDate after = t.getDateTimeAfter().toLocalDate();
      LocalDate first = before.isBefore(after) ? before : after;
      LocalDate last = before.isBefore(after) ? after : before;
      ranges.add(new DayRange(first, last));
    }
    OracleComparison c = new OracleComparison(zone, fireSource, windowSource);
    for (DayRange range : merged(ranges)) {
      for (OracleExpression e : expressions) {
        if (e.timesPerDay() <= DENSE || range.first().isBefore(denseUntil)) {
          c.compareRange(e, range);
        }
      }
    }
    return new Report(
        sharedBy,
        1,
        transitions.size(),
        c.fires,
        c.windows,
        c.disagreements,
        List.copyOf(c.examples),
        c.disagreements == 0 ? Set.of() : Set.of(zone));
  }

  /** The zone's transitions in {@code [from, to)}. */
  static List<ZoneOffsetTransition> transitions(ZoneRules rules, Instant from, Instant to) {
    List<ZoneOffsetTransition> out = new ArrayList<>();
    for (ZoneOffsetTransition t = rules.nextTransition(from.minusSeconds(1));
        t != null && t.getInstant().isBefore(to);
        t = rules.nextTransition(t.getInstant())) {
      out.add(t);
    }
    return out;
  }

  private static List<DayRange> merged(List<DayRange> ranges) {
    TreeMap<LocalDate, LocalDate> byFirst = new TreeMap<>();
    for (DayRange r : ranges) {
      byFirst.merge(r.first(), r.last(), (a, b) -> a.isAfter(b) ? a : b);
    }
    List<DayRange> out = new ArrayList<>();
    for (Map.Entry<LocalDate, LocalDate> e : byFirst.entrySet()) {
      DayRange last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && !e.getKey().isAfter(last.last().plusDays(1))) {
        LocalDate end = last.last().isAfter(e.getValue()) ? last.last() : e.getValue();
        out.set(out.size() - 1, new DayRange(last.first(), end));
      } else {
        out.add(new DayRange(e.getKey(), e.getValue()));
      }
    }
    return out;
  }

  private void compareRange(OracleExpression e, DayRange range) {
    Instant from = range.first().atStartOfDay(zone).toInstant();
    Instant until = range.last().plusDays(1).atStartOfDay(zone).toInstant();
    // Nominal times a day either side can be moved into the range by an offset change.
    List<FireTime> expected =
        List.copyOf(
            DstOracle.fires(e, zone, range.first().minusDays(1), range.last().plusDays(1))
                .subMap(from, until)
                .values());
    List<FireTime> actual =
        fireSource.fires(
            CronSchedule.parse(e.cron(), zone), from.minusSeconds(1), until.minusSeconds(1));
    fires += Math.max(expected.size(), actual.size());
    if (!actual.equals(expected)) {
      Set<FireTime> expectedSet = new HashSet<>(expected);
      Set<FireTime> actualSet = new HashSet<>();
      for (FireTime f : actual) {
        if (!actualSet.add(f)) {
          disagree(e, "fires twice: " + f);
        } else if (!expectedSet.contains(f)) {
          disagree(e, "fire not in the oracle: " + f);
        }
      }
      expected.stream()
          .filter(f -> !actualSet.contains(f))
          .forEach(f -> disagree(e, "missing fire: " + f));
    }
    Map<String, Integer> firesPerDay = new HashMap<>();
    for (FireTime f : actual) {
      firesPerDay.merge(
          windowSource.window(WindowKind.DAILY, f.instant(), zone).key(), 1, Integer::sum);
      if (!windowsChecked.add(f.instant())) {
        continue; // another expression fired at this instant: its windows are checked
      }
      for (WindowKind kind : WindowKind.values()) {
        Window got = windowSource.window(kind, f.instant(), zone);
        Window want =
            oracleWindows.computeIfAbsent(
                kind + " " + DstOracle.key(kind, f.instant(), zone),
                k -> DstOracle.window(kind, f.instant(), zone));
        windows++;
        if (!got.equals(want)) {
          disagree(e, kind + " window of " + f + ": " + got + ", oracle " + want);
        }
        Window sameKey = sourceWindows.putIfAbsent(kind + " " + got.key(), got);
        if (sameKey != null && !sameKey.equals(got)) {
          disagree(e, "two " + kind + " windows share a key: " + sameKey + " and " + got);
        }
      }
    }
    if (e.timesPerDay() == 1) {
      for (LocalDate d = range.first(); !d.isAfter(range.last()); d = d.plusDays(1)) {
        // A date skipped whole (Samoa's 2011-12-30) has no window; its fire joins the next date's
        // window, or is the same instant as the next date's own fire at its first instant.
        LocalDate before = d.minusDays(1);
        int own = exists(d) && e.day().test(d) ? 1 : 0;
        int carried = exists(d) && !exists(before) && e.day().test(before) ? 1 : 0;
        int n = firesPerDay.getOrDefault(d.toString(), 0);
        if (n < own || n > own + carried) {
          disagree(
              e,
              "local date "
                  + d
                  + " has "
                  + n
                  + " fires, not "
                  + (carried == 0 ? own : own + " or " + (own + carried)));
        }
      }
    }
  }

  /** Whether the local date exists in the zone at all. */
  private boolean exists(LocalDate date) {
    return date.atStartOfDay(zone).toLocalDate().equals(date);
  }

  private void disagree(OracleExpression e, String what) {
    disagreements++;
    if (examples.size() < EXAMPLES) {
      examples.add(zone + " " + e + ": " + what);
    }
  }
}
