package dev.carillon.testkit;

import dev.carillon.api.Stability;
import java.util.Optional;

/**
 * One attempt's record of one effect of a harness run ({@code AgentContext.once}), as the worker
 * stored it.
 *
 * @param key the effect's key
 * @param attempt the attempt that started it
 * @param starts how many times that attempt started it
 * @param workerId the worker that ran the attempt
 * @param done whether the attempt recorded it as done; {@code false} means it failed or the attempt
 *     died or lost its lease before recording it (in doubt)
 * @param result the recorded result, if any
 */
@Stability.Evolving
public record RunEffect(
    String key, int attempt, int starts, String workerId, boolean done, Optional<String> result) {}
