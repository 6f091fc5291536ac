package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What wakes a task, in brief.
 *
 * @param kind {@code CRON}, {@code AT} (a one-shot), {@code DEPENDENCY}, {@code EVENT} or {@code
 *     CONDITION}
 * @param cron the cron expression (with seconds) of a CRON task
 * @param at the one instant of an AT task
 * @param after the upstream task ids of a DEPENDENCY task
 * @param text one line for people, e.g. {@code cron 0 0 8 * * ? in Europe/Berlin}
 * @param zone the task's zone, in which {@code local} shows the times; null when unknown (the task
 *     was deleted, or it has no readable definition)
 * @param local the instants above that are set, on the task's wall clock with their offset (e.g.
 *     {@code 2026-03-29T10:00:00+02:00}), keyed by the field's name: {@code at}; empty without a
 *     zone
 */
@Stability.Evolving
public record TriggerView(
    String kind,
    String cron,
    Instant at,
    List<String> after,
    String text,
    String zone,
    Map<String, String> local) {
  public TriggerView {
    local = local == null ? Map.of() : Map.copyOf(local);
  }
}
