package dev.carillon.model.task;

import dev.carillon.model.schedule.DstAdjustment;
import dev.carillon.model.schedule.FireTime;
import dev.carillon.model.schedule.WindowKind;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A one-shot trigger: the task fires once, at {@code at}, and never again.
 *
 * <p>The instant is absolute, so no zone rule can move or drop it; the zone only says how its
 * window and times are shown. The trigger evaluates a one-shot from just before {@code at}, however
 * late it first sees the task, so one applied a moment before its instant (or seen only after a
 * failover) still fires, late, as a catch-up within the task's catch-up window, and is recorded
 * SKIPPED beyond it. The window (by default {@link WindowKind#EVERY_FIRE}, keyed by the instant)
 * makes the one fire unique however often it is evaluated.
 *
 * @param at the instant, a whole second from {@link #EARLIEST} to before {@link #LATEST}
 * @param window the window kind of the one fire
 * @param zone the zone its window is computed and shown in
 * @throws InvalidTaskException naming {@code at}, {@code schedule.window} or {@code schedule.zone}
 *     and the value
 */
public record AtTrigger(Instant at, WindowKind window, ZoneId zone) implements TimeTrigger {
  /** The earliest instant accepted. */
  public static final Instant EARLIEST = Instant.parse("2000-01-01T00:00:00Z");

  /** Instants from here on are refused (a cron expression never fires after 2099 either). */
  public static final Instant LATEST = Instant.parse("2100-01-01T00:00:00Z");

  public AtTrigger {
    List<Problem> problems = new ArrayList<>();
    if (TaskRules.required(problems, "at", at)) {
      TaskRules.check(problems, "at", at, TaskRules.at(at));
    }
    TaskRules.required(problems, "schedule.window", window);
    TaskRules.required(problems, "schedule.zone", zone);
    TaskRules.throwIfAny(null, problems);
  }

  @Override
  public TriggerKind kind() {
    return TriggerKind.AT;
  }

  @Override
  public List<FireTime> fireTimesDetailed(Instant fromExclusive, Instant upToInclusive, int limit) {
    Objects.requireNonNull(fromExclusive, "fromExclusive");
    Objects.requireNonNull(upToInclusive, "upToInclusive");
    if (limit < 0) {
      throw new IllegalArgumentException("limit must be >= 0, was " + limit);
    }
    return limit > 0 && at.isAfter(fromExclusive) && !at.isAfter(upToInclusive)
        ? List.of(new FireTime(at, LocalDateTime.ofInstant(at, zone), DstAdjustment.NONE))
        : List.of();
  }

  @Override
  public Optional<Instant> nextAfter(Instant after) {
    return at.isAfter(Objects.requireNonNull(after, "after")) ? Optional.of(at) : Optional.empty();
  }

  /**
   * One line for people: {@code once at 2026-12-24T08:00:00Z}, and in a zone other than UTC its
   * local time too, {@code once at 2026-12-24T08:00:00Z (2026-12-24T09:00 in Europe/Berlin)}.
   */
  @Override
  public String describe() {
    String utc = "once at " + at;
    return zone.normalized().equals(ZoneOffset.UTC)
        ? utc
        : utc + " (" + LocalDateTime.ofInstant(at, zone) + " in " + zone + ")";
  }

  /**
   * Whether a one-shot applied at {@code now} came too late to run: its instant is older than the
   * catch-up window, so the trigger would only record it SKIPPED.
   */
  public boolean missedAt(Instant now, Duration catchup) {
    return at.plus(catchup).isBefore(now);
  }
}
