package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;

/**
 * One entry of an instance's (or a window's) history.
 *
 * @param kind {@code CREATED}, {@code TRANSITION} or {@code DECISION} (a trigger decision that
 *     created nothing, such as a skip)
 * @param from the status before a transition
 * @param to the status after it
 * @param attempt the attempt it belongs to
 * @param actor who acted: {@code trigger:<id>}, a worker id, {@code retry:<id>}, {@code
 *     schedctl:<user>} or {@code api:<principal>}
 * @param reason why, in the actor's words
 * @param text the whole event in plain words, as {@code schedctl why} prints it
 */
@Stability.Evolving
public record EventView(
    long id,
    Long instanceId,
    String kind,
    String from,
    String to,
    Integer attempt,
    String actor,
    String reason,
    Instant at,
    String text) {}
