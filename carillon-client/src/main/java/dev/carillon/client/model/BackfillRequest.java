package dev.carillon.client.model;

import dev.carillon.api.Stability;

/**
 * A backfill ({@code POST /tasks/{id}/backfill}): the missing windows with a fire time in {@code
 * [from, to)}.
 *
 * @param from the first fire time included: an instant ({@code 2026-03-01T08:00:00Z}), a local
 *     date-time or a date, both read in the task's zone
 * @param to the end, excluded; not after now
 * @param dryRun true (the default when null) lists the windows and writes nothing
 */
@Stability.Evolving
public record BackfillRequest(String from, String to, Boolean dryRun) {}
