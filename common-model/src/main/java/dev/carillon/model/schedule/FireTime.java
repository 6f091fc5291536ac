package dev.carillon.model.schedule;

import java.time.Instant;
import java.time.LocalDateTime;
import java.util.Objects;

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
}
