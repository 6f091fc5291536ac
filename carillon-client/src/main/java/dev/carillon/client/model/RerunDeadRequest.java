package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;

/**
 * A bulk re-run of DEAD instances ({@code POST /instances:rerun-dead}).
 *
 * @param task only this task's, or null for every task
 * @param from only those scheduled at or after this
 * @param to only those scheduled before this
 * @param reason recorded on each re-run
 * @param limit the most instances moved, 1..500
 * @param dryRun true (the default when null) counts and lists, and moves nothing
 * @param fromScratch true discards each instance's checkpoints and effects; false or null (the
 *     default) keeps them, so the re-runs resume
 * @param failReason only those whose failure reason is exactly this (a group of {@code GET
 *     /dead-letters}), the empty string for those with none recorded, or null for any
 */
@Stability.Evolving
public record RerunDeadRequest(
    String task,
    Instant from,
    Instant to,
    String reason,
    Integer limit,
    Boolean dryRun,
    Boolean fromScratch,
    String failReason) {

  /** A re-run whatever the failure reason. */
  public RerunDeadRequest(
      String task,
      Instant from,
      Instant to,
      String reason,
      Integer limit,
      Boolean dryRun,
      Boolean fromScratch) {
    this(task, from, to, reason, limit, dryRun, fromScratch, null);
  }
}
