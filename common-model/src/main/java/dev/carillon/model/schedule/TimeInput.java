package dev.carillon.model.schedule;

import dev.carillon.model.Durations;
import dev.carillon.model.InvalidValueException;
import dev.carillon.model.task.Problem;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.Optional;

/**
 * Reads the times operators type ({@code schedctl} options, API fields): instants, local dates and
 * times in a zone, or "24h ago".
 */
public final class TimeInput {
  private TimeInput() {}

  /**
   * Reads {@code text} as {@code 2026-03-29T08:00:00Z} (or with an offset), {@code
   * 2026-03-29T08:00} (local time in {@code zone}), {@code 2026-03-29} (start of that day in {@code
   * zone}), or, when {@code agoFrom} is given, a duration meaning that long ago ({@code 24h}).
   *
   * @param field the option's or field's name, for the problem
   * @throws InvalidValueException naming {@code field} and {@code text}, with the forms accepted
   */
  public static Instant parse(String field, String text, ZoneId zone, Clock agoFrom) {
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
    throw new InvalidValueException(
        new Problem(
            field,
            text,
            "is not a time: use 2026-03-29T08:00:00Z, 2026-03-29T08:00 or 2026-03-29 (read in "
                + zone
                + ")"
                + (agoFrom != null ? ", or a duration ago such as 24h" : "")));
  }
}
