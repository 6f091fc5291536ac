package dev.carillon.model.schedule;

/**
 * How a daylight-saving change moved one fire time away from its nominal local wall-clock time. See
 * {@link CronSchedule} for the policy that produces each value.
 */
public enum DstAdjustment {
  /** The nominal local time exists exactly once in the zone; the fire is at that instant. */
  NONE,
  /**
   * The nominal local time falls into a spring-forward gap and does not exist; the fire moved to
   * the first instant after the gap (the transition instant). Every nominal time in one gap maps to
   * that same instant, which is emitted once, reported with the earliest of them. Where the gap
   * ends the local day (the clocks jump to midnight), the fire moved instead to the last second
   * before the gap, so that it stays on its own date.
   */
  SHIFTED_OUT_OF_GAP,
  /**
   * The nominal local time is repeated by a fall-back change; this is its first occurrence (the
   * earlier, pre-transition offset). Schedules that do not fire in every hour fire only here.
   */
  FIRST_OF_REPEATED,
  /**
   * The nominal local time is repeated by a fall-back change; this is its second occurrence (the
   * later offset). Only schedules whose hour field matches all 24 hours fire here.
   */
  SECOND_OF_REPEATED
}
