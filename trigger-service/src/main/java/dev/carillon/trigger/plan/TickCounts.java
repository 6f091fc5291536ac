package dev.carillon.trigger.plan;

/**
 * Totals of one tick's plan, for metrics and tests.
 *
 * @param tasksEvaluated tasks whose fire times were looked at
 * @param tasksStarted tasks seen for the first time; their cursor starts at now
 * @param fireTimes fire times consumed
 * @param pending PENDING rows planned (on time and catch-up)
 * @param catchup of {@code pending}, those with origin CATCHUP
 * @param skippedOverlap SKIPPED rows planned because an earlier window is live
 * @param skippedCatchup SKIPPED rows planned because they are outside the catch-up window
 * @param paused "task paused" decisions
 * @param exists "window exists" decisions known at planning time
 * @param truncatedTasks tasks whose backlog hit the per-tick cap
 */
public record TickCounts(
    int tasksEvaluated,
    int tasksStarted,
    int fireTimes,
    int pending,
    int catchup,
    int skippedOverlap,
    int skippedCatchup,
    int paused,
    int exists,
    int truncatedTasks) {}
