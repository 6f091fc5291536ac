package dev.carillon.model.schedule;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.IsoFields;
import java.time.zone.ZoneRules;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * Carillon's daylight-saving policy stated as naively as possible, to check {@link CronSchedule}
 * and {@link WindowKind} against. It uses no cron library and none of the production code: it walks
 * every local wall-clock time of the given days (the seconds the expression names, so minute by
 * minute for these expressions), keeps those the expression's fields match, and maps each to an
 * instant with the zone's rules:
 *
 * <ol>
 *   <li>A local time that exists once fires at that instant.
 *   <li>A local time in a gap does not exist. It fires at the nearest instant of its own date after
 *       the gap is opened: the transition (the first instant after the gap) if the date there is
 *       still its date; otherwise (the gap ends the day) the last second before the gap, if that is
 *       on its date; otherwise (the whole date is skipped) the transition.
 *   <li>A local time that exists twice fires at its first occurrence, and at the second too if the
 *       hour field matches all 24 hours.
 *   <li>Several local times that map to one instant fire once, reported with the earliest.
 * </ol>
 *
 * A window is the set of instants that share its key: its bounds are found by walking out from the
 * fire until the key changes (a day at a time, then an hour, ten minutes, and so on down to a
 * second).
 */
final class DstOracle {
  private DstOracle() {}

  /**
   * The fires whose nominal local time lies on the days {@code first..last}, ordered by instant.
   */
  static NavigableMap<Instant, FireTime> fires(
      OracleExpression expression, ZoneId zone, LocalDate first, LocalDate last) {
    ZoneRules rules = zone.getRules();
    boolean everyHour = expression.hourFieldMatchesEveryHour();
    int[] seconds = IntStream.range(0, 60).filter(expression.second()).toArray();
    NavigableMap<Instant, FireTime> fires = new TreeMap<>();
    for (LocalDate date = first; !date.isAfter(last); date = date.plusDays(1)) {
      if (!expression.day().test(date)) {
        continue;
      }
      for (int hour = 0; hour < 24; hour++) {
        if (!expression.hour().test(hour)) {
          continue;
        }
        for (int minute = 0; minute < 60; minute++) {
          if (!expression.minute().test(minute)) {
            continue;
          }
          for (int second : seconds) {
            // Walked in ascending local order, so putIfAbsent keeps the earliest local time.
            LocalDateTime local = date.atTime(hour, minute, second);
            List<ZoneOffset> offsets = rules.getValidOffsets(local);
            if (offsets.isEmpty()) {
              Instant at = outOfGap(local, rules);
              fires.putIfAbsent(at, new FireTime(at, local, DstAdjustment.SHIFTED_OUT_OF_GAP));
            } else if (offsets.size() == 1) {
              Instant at = local.toInstant(offsets.get(0));
              fires.putIfAbsent(at, new FireTime(at, local, DstAdjustment.NONE));
            } else {
              Instant a = local.toInstant(offsets.get(0));
              Instant b = local.toInstant(offsets.get(1));
              Instant firstTime = a.isBefore(b) ? a : b;
              Instant secondTime = a.isBefore(b) ? b : a;
              fires.putIfAbsent(
                  firstTime, new FireTime(firstTime, local, DstAdjustment.FIRST_OF_REPEATED));
              if (everyHour) {
                fires.putIfAbsent(
                    secondTime, new FireTime(secondTime, local, DstAdjustment.SECOND_OF_REPEATED));
              }
            }
          }
        }
      }
    }
    return fires;
  }

  private static Instant outOfGap(LocalDateTime missing, ZoneRules rules) {
    Instant after = rules.getTransition(missing).getInstant();
    Instant before = after.minusSeconds(1);
    LocalDate date = missing.toLocalDate();
    if (!localDate(after, rules).equals(date) && localDate(before, rules).equals(date)) {
      return before;
    }
    return after;
  }

  private static LocalDate localDate(Instant instant, ZoneRules rules) {
    return LocalDateTime.ofInstant(instant, rules.getOffset(instant)).toLocalDate();
  }

  /** The documented key of the window of {@code kind} that holds {@code instant}. */
  static String key(WindowKind kind, Instant instant, ZoneId zone) {
    ZoneOffset offset = zone.getRules().getOffset(instant);
    LocalDateTime local = LocalDateTime.ofInstant(instant, offset);
    LocalDate date = local.toLocalDate();
    return switch (kind) {
      case DAILY -> date.toString();
      case HOURLY ->
          date
              + "T"
              + twoDigits(local.getHour())
              + (offset.getTotalSeconds() == 0 ? "+00:00" : offset.getId());
      case WEEKLY ->
          date.get(IsoFields.WEEK_BASED_YEAR)
              + "-W"
              + twoDigits(date.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR));
      case MONTHLY -> YearMonth.from(date).toString();
      case EVERY_FIRE -> instant.toString();
    };
  }

  private static String twoDigits(int value) {
    return value < 10 ? "0" + value : Integer.toString(value);
  }

  /** The window of {@code kind} that holds {@code fire}: every instant around it with its key. */
  static Window window(WindowKind kind, Instant fire, ZoneId zone) {
    String key = key(kind, fire, zone);
    if (kind == WindowKind.EVERY_FIRE) {
      return new Window(key, fire, fire);
    }
    Instant start = fire;
    Instant lastIn = fire;
    for (long step : new long[] {86_400, 3600, 600, 60, 10, 1}) {
      while (key(kind, start.minusSeconds(step), zone).equals(key)) {
        start = start.minusSeconds(step);
      }
      while (key(kind, lastIn.plusSeconds(step), zone).equals(key)) {
        lastIn = lastIn.plusSeconds(step);
      }
    }
    return new Window(key, start, lastIn.plusSeconds(1));
  }
}
