package dev.carillon.model.schedule;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.Optional;

/**
 * One fire time with the wall-clock time the cron expression named, so an operator can see when a
 * daylight-saving change moved it.
 *
 * @param instant the absolute fire time
 * @param nominal the local wall-clock time the expression matched in the schedule's zone; for a
 *     {@link DstAdjustment#SHIFTED_OUT_OF_GAP} fire it does not exist in the zone
 * @param adjustment how the zone's rules turned {@code nominal} into {@code instant}
 */
public record FireTime(Instant instant, LocalDateTime nominal, DstAdjustment adjustment) {
  public FireTime {
    Objects.requireNonNull(instant, "instant");
    Objects.requireNonNull(nominal, "nominal");
    Objects.requireNonNull(adjustment, "adjustment");
  }

  /**
   * What a daylight-saving change did to this fire time, in words, e.g. {@code SHIFTED: 02:30 does
   * not exist on 2026-03-08 (clocks spring forward); fires at 03:30 instead}; empty when nothing.
   *
   * @param zone the schedule's zone
   */
  public Optional<String> dstNote(ZoneId zone) {
    ZonedDateTime local = instant.atZone(zone);
    String time = nominal.toLocalTime().toString();
    return switch (adjustment) {
      case NONE -> Optional.empty();
      case SHIFTED_OUT_OF_GAP ->
          Optional.of(
              "SHIFTED: "
                  + time
                  + " does not exist on "
                  + nominal.toLocalDate()
                  + " (clocks spring forward); fires at "
                  + local.toLocalTime()
                  + " instead");
      case FIRST_OF_REPEATED ->
          Optional.of(
              "REPEATED HOUR: "
                  + time
                  + " happens twice (clocks fall back); this is the first, offset "
                  + local.getOffset());
      case SECOND_OF_REPEATED ->
          Optional.of(
              "REPEATED HOUR: second "
                  + time
                  + " (clocks fell back), offset "
                  + local.getOffset()
                  + "; an every-hour schedule fires in both");
    };
  }
}
