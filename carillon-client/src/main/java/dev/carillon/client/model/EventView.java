package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.Map;

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
 * @param zone the task's zone, in which {@code local} shows the times; null when unknown (the task
 *     was deleted, or it has no readable definition)
 * @param local the instants above that are set, on the task's wall clock with their offset (e.g.
 *     {@code 2026-03-29T10:00:00+02:00}), keyed by the field's name: {@code at}; empty without a
 *     zone
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
    String text,
    String zone,
    Map<String, String> local) {
  public EventView {
    local = local == null ? Map.of() : Map.copyOf(local);
  }
}
