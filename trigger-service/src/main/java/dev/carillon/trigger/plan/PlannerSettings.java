package dev.carillon.trigger.plan;

import java.time.Duration;
import java.util.Objects;

/**
 * The limits a {@link TickPlanner} works within.
 *
 * @param maxWindowsPerTask the most fire times one task has evaluated in one tick; a longer backlog
 *     is worked off over the following ticks, oldest first, because the cursor only advances to the
 *     last evaluated fire time
 * @param onTimeGrace a fire time at most this old when its tick runs counts as on time (origin
 *     SCHEDULE) and is never subject to the catch-up limit; older ones were missed (origin CATCHUP)
 * @param actor who the event log names for the trigger's decisions, e.g. {@code trigger:host:42}
 */
public record PlannerSettings(int maxWindowsPerTask, Duration onTimeGrace, String actor) {
  /** At most this many fire times per task per tick, so that one backlog cannot stall a tick. */
  public static final int DEFAULT_MAX_WINDOWS_PER_TASK = 100;

  /**
   * Ticks run every second; a fire time up to ten seconds old was delayed (GC pause, slow commit),
   * not missed during downtime.
   */
  public static final Duration DEFAULT_ON_TIME_GRACE = Duration.ofSeconds(10);

  public PlannerSettings {
    if (maxWindowsPerTask < 1) {
      throw new IllegalArgumentException(
          "maxWindowsPerTask must be at least 1, was " + maxWindowsPerTask);
    }
    Objects.requireNonNull(onTimeGrace, "onTimeGrace");
    if (onTimeGrace.isNegative()) {
      throw new IllegalArgumentException("onTimeGrace must not be negative, was " + onTimeGrace);
    }
    if (actor == null || actor.isBlank()) {
      throw new IllegalArgumentException("actor must not be blank, was '" + actor + "'");
    }
  }

  /** The defaults, with {@code actor} as the event-log actor. */
  public static PlannerSettings defaults(String actor) {
    return new PlannerSettings(DEFAULT_MAX_WINDOWS_PER_TASK, DEFAULT_ON_TIME_GRACE, actor);
  }
}
