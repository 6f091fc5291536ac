package dev.carillon.model.schedule;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.time.temporal.IsoFields;
import java.time.temporal.TemporalAdjusters;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;

/**
 * How a fire time maps to its business window, and so to the window key that identifies the
 * instance. Keys and windows are computed in the task's zone. Calendar windows start at the local
 * start of day as the zone's rules define it ({@code atStartOfDay(zone)}), which is not midnight in
 * zones whose clocks jump over midnight; so a New York day is 23 or 25 hours long on a
 * daylight-saving day. Windows of one kind never overlap, and every window contains the fire time
 * it was made from.
 */
public enum WindowKind {
  /** The local calendar day; key {@code 2026-11-29}. */
  DAILY {
    @Override
    Window window(ZonedDateTime fire) {
      LocalDate day = fire.toLocalDate();
      return calendarWindow(
          day.format(DateTimeFormatter.ISO_LOCAL_DATE), day, day.plusDays(1), fire.getZone());
    }
  },
  /**
   * The local hour, qualified by the UTC offset in force at the fire time; key {@code
   * 2026-11-01T01-04:00}. The repeated hour of a fall-back change therefore gets two keys ({@code
   * 2026-11-01T01-04:00} and {@code 2026-11-01T01-05:00}), each window holding only the instants
   * with that offset. A window is shorter than an hour where a transition cuts the hour (Lord Howe
   * Island moves its clocks by 30 minutes).
   */
  HOURLY {
    @Override
    Window window(ZonedDateTime fire) {
      ZoneOffset offset = fire.getOffset();
      LocalDateTime hour = fire.toLocalDateTime().truncatedTo(ChronoUnit.HOURS);
      Instant start = hour.toInstant(offset);
      Instant end = hour.plusHours(1).toInstant(offset);
      ZoneRules rules = fire.getZone().getRules();
      // Clip to the stretch in which this offset is in force, so that windows never overlap.
      while (!rules.getOffset(start).equals(offset)) {
        start = rules.nextTransition(start).getInstant();
      }
      ZoneOffsetTransition next = rules.nextTransition(fire.toInstant());
      if (next != null && next.getInstant().isBefore(end)) {
        end = next.getInstant();
      }
      return new Window(hour.atOffset(offset).format(HOUR_KEY), start, end);
    }
  },
  /**
   * The ISO week (Monday start, weeks belong to their week-based year); key {@code 2026-W48}. 31
   * December 2026 is in {@code 2026-W53}; 30 December 2024 is in {@code 2025-W01}.
   */
  WEEKLY {
    @Override
    Window window(ZonedDateTime fire) {
      LocalDate monday =
          fire.toLocalDate().with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
      String key =
          String.format(
              "%d-W%02d",
              monday.get(IsoFields.WEEK_BASED_YEAR), monday.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR));
      return calendarWindow(key, monday, monday.plusWeeks(1), fire.getZone());
    }
  },
  /** The local calendar month; key {@code 2026-11}. */
  MONTHLY {
    @Override
    Window window(ZonedDateTime fire) {
      LocalDate first = fire.toLocalDate().withDayOfMonth(1);
      return calendarWindow(first.format(MONTH_KEY), first, first.plusMonths(1), fire.getZone());
    }
  },
  /**
   * Every fire is its own window; key = the fire instant in UTC, {@code 2026-11-29T08:00:00Z}. The
   * window is the zero-length {@code [fire, fire]}: it identifies one fire and has no duration, so
   * window-bound retry policies have no window to retry in.
   */
  EVERY_FIRE {
    @Override
    Window window(ZonedDateTime fire) {
      Instant instant = fire.toInstant();
      return new Window(DateTimeFormatter.ISO_INSTANT.format(instant), instant, instant);
    }
  };

  // "xxxxx" prints +HH:MM (and :ss only for historic offsets), and +00:00 rather than Z.
  private static final DateTimeFormatter HOUR_KEY =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HHxxxxx");
  private static final DateTimeFormatter MONTH_KEY = DateTimeFormatter.ofPattern("uuuu-MM");

  /**
   * The window that contains {@code fireTime} in {@code zone}. Pure.
   *
   * @param fireTime the fire time
   * @param zone the task's zone
   * @return the window; its key is unique per task and kind
   */
  public Window windowOf(Instant fireTime, ZoneId zone) {
    Objects.requireNonNull(fireTime, "fireTime");
    Objects.requireNonNull(zone, "zone");
    return window(fireTime.atZone(zone));
  }

  abstract Window window(ZonedDateTime fire);

  private static Window calendarWindow(
      String key, LocalDate first, LocalDate nextFirst, ZoneId zone) {
    return new Window(
        key, first.atStartOfDay(zone).toInstant(), nextFirst.atStartOfDay(zone).toInstant());
  }
}
