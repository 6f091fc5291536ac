package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;

/**
 * DEAD instances of one task that failed for one reason ({@code GET /dead-letters}).
 *
 * @param reason their failure reason exactly as recorded, or null when none was; re-run them with
 *     {@code POST /instances:rerun-dead} and this as {@code failReason} (the empty string for none)
 * @param count how many
 * @param newestId the id of the latest of them
 */
@Stability.Evolving
public record DeadGroupView(
    String task,
    String reason,
    long count,
    Instant firstFinishedAt,
    Instant lastFinishedAt,
    long newestId) {}
