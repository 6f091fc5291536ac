package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;

/**
 * One attempt's record of one side effect of an instance ({@code AgentContext.once}, an exec
 * agent's effect line): it started the effect and, if {@code done}, recorded that it happened. An
 * effect started and never recorded as done is in doubt: the next attempt performs it again with
 * the same idempotency key.
 *
 * @param key the effect's key within the window
 * @param attempt the attempt that started it
 * @param starts how many times that attempt started it
 * @param workerId the worker that ran the attempt
 * @param done whether the attempt recorded it as done
 * @param startedAt when the attempt last started it
 * @param doneAt when it was recorded as done, or null
 * @param result the recorded result, or null
 */
@Stability.Evolving
public record EffectView(
    String key,
    int attempt,
    int starts,
    String workerId,
    boolean done,
    Instant startedAt,
    Instant doneAt,
    String result) {}
