package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.Map;

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
 * @param zone the task's zone, in which {@code local} shows the times; null when unknown (the task
 *     was deleted, or it has no readable definition)
 * @param local the instants above that are set, on the task's wall clock with their offset (e.g.
 *     {@code 2026-03-29T10:00:00+02:00}), keyed by the field's name: {@code startedAt}, {@code
 *     doneAt}; empty without a zone
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
    String result,
    String zone,
    Map<String, String> local) {
  public EffectView {
    local = local == null ? Map.of() : Map.copyOf(local);
  }
}
