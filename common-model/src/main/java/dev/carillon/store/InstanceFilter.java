package dev.carillon.store;

import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.Origin;
import java.time.Instant;
import java.util.Set;

/**
 * Which instances an operator lists: every condition given must hold.
 *
 * @param taskId only this task's, or null for every task
 * @param statuses only these statuses, or empty for any
 * @param origins only these origins, or empty for any
 * @param from only those scheduled at or after this, or null
 * @param to only those scheduled before this, or null
 * @param failReason only those whose failure reason is exactly this, the empty string for those
 *     with none recorded, or null for any
 */
public record InstanceFilter(
    String taskId,
    Set<InstanceStatus> statuses,
    Set<Origin> origins,
    Instant from,
    Instant to,
    String failReason) {
  public InstanceFilter {
    statuses = statuses == null ? Set.of() : Set.copyOf(statuses);
    origins = origins == null ? Set.of() : Set.copyOf(origins);
  }

  /** A filter on anything but the failure reason. */
  public InstanceFilter(
      String taskId, Set<InstanceStatus> statuses, Set<Origin> origins, Instant from, Instant to) {
    this(taskId, statuses, origins, from, to, null);
  }

  /** Every instance. */
  public static InstanceFilter all() {
    return new InstanceFilter(null, Set.of(), Set.of(), null, null);
  }

  /** This filter narrowed to one status. */
  public InstanceFilter withStatus(InstanceStatus status) {
    return new InstanceFilter(taskId, Set.of(status), origins, from, to, failReason);
  }
}
