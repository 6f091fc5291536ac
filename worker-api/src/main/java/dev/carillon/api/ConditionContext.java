package dev.carillon.api;

import java.time.Instant;

/**
 * What one poll of an {@link AgentCondition} knows: the task, the window being waited for, the poll
 * instant (the trigger's clock) and the condition's parameters.
 *
 * @param taskId the task id
 * @param windowKey the key of the window the poll belongs to, e.g. {@code 2026-11-29}
 * @param windowStart the window's inclusive start (UTC)
 * @param windowEnd the window's exclusive end (UTC)
 * @param now the poll's instant (UTC)
 * @param paramsJson the condition's {@code params} as a JSON object, {@code {}} when none
 */
@Stability.Evolving
public record ConditionContext(
    String taskId,
    String windowKey,
    Instant windowStart,
    Instant windowEnd,
    Instant now,
    String paramsJson) {}
