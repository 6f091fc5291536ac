package dev.carillon.model.schedule;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneRules;
import java.util.List;
import java.util.Objects;

/**
 * How far a cron task's fire times have been evaluated: every fire time up to and including {@code
 * evaluatedUntil}, read with the zone rules in force then.
 *
 * <p>Fire times are local wall-clock times, so what was evaluated is really the local time the
 * zone's clock read at {@code evaluatedUntil}: the instant at {@code offset}. When the zone's rules
 * change between two evaluations (a tzdata update that moves or abolishes a daylight-saving change
 * arrives after the change took effect, and is installed with a newer JDK or tzupdater and a
 * restart), the same instant can read another local time. Taken as it is, the cursor would then
 * evaluate local times a second time (doubling a window whose key holds the instant or the offset)
 * or skip them (losing a window). {@link #underRulesOf} moves it to where its local time is under
 * the current rules.
 *
 * @param evaluatedUntil the last instant evaluated
 * @param offset the zone's UTC offset at {@code evaluatedUntil} under the rules the evaluation
 *     used; null for a cursor stored before offsets were recorded, taken to agree with any rules
 */
public record TriggerCursor(Instant evaluatedUntil, ZoneOffset offset) {
  public TriggerCursor {
    Objects.requireNonNull(evaluatedUntil, "evaluatedUntil");
  }

  /** A cursor at {@code instant}, with the offset the zone's current rules give there. */
  public static TriggerCursor at(Instant instant, ZoneId zone) {
    return new TriggerCursor(instant, zone.getRules().getOffset(instant));
  }

  /**
   * This cursor under {@code zone}'s current rules. If they give the recorded offset at {@code
   * evaluatedUntil} (or none is recorded), the same instant. Otherwise the instant at which the
   * zone's clock now reads the cursor's local time: the first of the two if that time now occurs
   * twice (the second occurrences of an every-hour schedule were not evaluated yet), or the last
   * second before the gap if it now does not occur at all.
   *
   * @return this cursor, or the moved one, always with the current rules' offset
   */
  public TriggerCursor underRulesOf(ZoneId zone) {
    ZoneRules rules = zone.getRules();
    ZoneOffset now = rules.getOffset(evaluatedUntil);
    if (offset == null || offset.equals(now)) {
      return offset == null ? new TriggerCursor(evaluatedUntil, now) : this;
    }
    LocalDateTime local = LocalDateTime.ofInstant(evaluatedUntil, offset);
    List<ZoneOffset> valid = rules.getValidOffsets(local);
    Instant moved =
        valid.isEmpty()
            ? rules.getTransition(local).getInstant().minusSeconds(1)
            : valid.stream().map(local::toInstant).min(Instant::compareTo).orElseThrow();
    return new TriggerCursor(moved, rules.getOffset(moved));
  }
}
