package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;

/**
 * One coming fire time.
 *
 * @param utc the instant
 * @param local the same instant in the task's zone with its offset, e.g. {@code
 *     2026-03-29T08:00:00+02:00}
 * @param nominal the local time the cron expression names (differs from {@code local} when a DST
 *     change moved it)
 * @param window the key of the window it falls in
 * @param adjustment {@code NONE}, {@code SHIFTED_OUT_OF_GAP}, {@code FIRST_OF_REPEATED} or {@code
 *     SECOND_OF_REPEATED}
 * @param note what a DST change did to it, or null
 */
@Stability.Evolving
public record FireView(
    Instant utc, String local, String nominal, String window, String adjustment, String note) {}
