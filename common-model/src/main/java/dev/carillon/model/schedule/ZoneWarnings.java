package dev.carillon.model.schedule;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Zones that are valid but seldom what a schedule means.
 *
 * <p>A zone written as a UTC offset ({@code +08:00}, {@code UTC+8}, {@code GMT-05:00}) is accepted:
 * Java reads it as a zone, and a task that really wants a fixed offset should get one. But it never
 * observes daylight saving time, so {@code -05:00} is New York's time only in winter, and the usual
 * reason to write it is to mean a place. Such a zone therefore gets a warning wherever it is
 * applied or shown. UTC itself ({@code UTC}, {@code Z}, {@code +00:00}) and the time-zone
 * database's own fixed zones ({@code Etc/GMT-8}), which are named on purpose, get none.
 */
public final class ZoneWarnings {
  private static final Set<String> REGIONS = ZoneId.getAvailableZoneIds();

  private ZoneWarnings() {}

  /**
   * The warning for {@code zone}, if it is a fixed offset other than UTC that is not a zone of the
   * time-zone database.
   *
   * @param field the field that named the zone, for the message (e.g. {@code schedule.zone})
   * @return e.g. "schedule.zone '+08:00' is a fixed UTC offset, not a region: it never observes
   *     daylight saving time; name a region (e.g. America/New_York) if the task should follow a
   *     place's clocks"
   */
  public static Optional<String> of(String field, ZoneId zone) {
    Objects.requireNonNull(zone, "zone");
    if (REGIONS.contains(zone.getId()) || !zone.getRules().isFixedOffset()) {
      return Optional.empty();
    }
    ZoneOffset offset = zone.getRules().getOffset(Instant.EPOCH);
    if (offset.getTotalSeconds() == 0) {
      return Optional.empty();
    }
    return Optional.of(
        field
            + " '"
            + zone.getId()
            + "' is a fixed UTC offset, not a region: it never observes daylight saving time;"
            + " name a region (e.g. America/New_York) if the task should follow a place's clocks");
  }
}
