package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;

/**
 * What wakes a task, in brief.
 *
 * @param kind {@code CRON}, {@code AT} (a one-shot), {@code DEPENDENCY}, {@code EVENT} or {@code
 *     CONDITION}
 * @param cron the cron expression (with seconds) of a CRON task
 * @param at the one instant of an AT task
 * @param after the upstream task ids of a DEPENDENCY task
 * @param text one line for people, e.g. {@code cron 0 0 8 * * ? in Europe/Berlin}
 */
@Stability.Evolving
public record TriggerView(String kind, String cron, Instant at, List<String> after, String text) {}
