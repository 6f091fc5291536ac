package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.util.List;

/**
 * What a bulk re-run found or did.
 *
 * @param matched DEAD instances matching the filter, up to the limit
 * @param moved how many were moved back to PENDING (0 in a dry run); fewer than matched when some
 *     changed meanwhile
 * @param published how many of those Kafka acknowledged now
 * @param ids the matched ids (dry run) or the moved ones
 */
@Stability.Evolving
public record RerunDeadResult(
    boolean dryRun, int matched, int moved, int published, List<Long> ids) {
  public RerunDeadResult {
    ids = List.copyOf(ids);
  }
}
