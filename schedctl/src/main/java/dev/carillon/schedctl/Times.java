package dev.carillon.schedctl;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.schedule.TimeInput;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * Reads the times operators type ({@link TimeInput}, as the CLI's bad input) and writes instants in
 * a task's zone beside UTC.
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
   * See {@link TimeInput#parse}.
   *
   * @param option the option's name, for the message
   * @throws CliException (exit 2) naming the option and the text
   */
  static Instant parse(String option, String text, ZoneId zone, Clock agoFrom) {
    try {
      return TimeInput.parse(option, text, zone, agoFrom);
    } catch (InvalidValueException e) {
      throw CliException.badInput(option + " '" + text + "' " + e.problem().message());
    }
  }
}
