package dev.carillon.schedctl;

import dev.carillon.model.Durations;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * Reads the times operators type (instants, local dates and times in a zone, or "24h ago") and
 * writes instants in a task's zone beside UTC.
 */
final class Times {
  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssxxx");

  private Times() {}

  /** {@code instant} on {@code zone}'s wall clock, with its offset: 2026-03-08T03:00:00-04:00. */
  static String local(Instant instant, ZoneId zone) {
    return instant.atZone(zone).format(LOCAL);
  }

  /**
   * {@code instant} in UTC and, when the zone is known, on its wall clock: {@code
   * 2026-03-08T07:00:00Z (2026-03-08T03:00:00-04:00)}; empty for no instant.
   */
  static String both(Instant instant, Optional<ZoneId> zone) {
    if (instant == null) {
      return "";
    }
    return instant + zone.map(z -> " (" + local(instant, z) + ")").orElse("");
  }

  /**
   * Reads {@code text} as {@code 2026-03-29T08:00:00Z} (or with an offset), {@code
   * 2026-03-29T08:00} (local time in {@code zone}), {@code 2026-03-29} (start of that day in {@code
   * zone}), or, when {@code clock} is given, a duration meaning that long ago ({@code 24h}).
   *
   * @param option the option's name, for the message
   * @throws CliException (exit 2) naming the option and the text
   */
  static Instant parse(String option, String text, ZoneId zone, Clock agoFrom) {
    String t = text == null ? "" : text.trim();
    try {
      return OffsetDateTime.parse(t).toInstant();
    } catch (DateTimeException e) {
      // not an instant; try the next form
    }
    try {
      return LocalDateTime.parse(t).atZone(zone).toInstant();
    } catch (DateTimeException e) {
      // not a local date-time
    }
    try {
      return LocalDate.parse(t).atStartOfDay(zone).toInstant();
    } catch (DateTimeException e) {
      // not a date
    }
    if (agoFrom != null) {
      Optional<Duration> ago;
      try {
        ago = Durations.tryParse(t);
      } catch (ArithmeticException e) {
        ago = Optional.empty();
      }
      if (ago.isPresent() && !ago.get().isNegative()) {
        return agoFrom.instant().minus(ago.get());
      }
    }
    throw CliException.badInput(
        option
            + " '"
            + text
            + "' is not a time: use 2026-03-29T08:00:00Z, 2026-03-29T08:00 or 2026-03-29 (read in "
            + zone
            + ")"
            + (agoFrom != null ? ", or a duration ago such as 24h" : ""));
  }
}
