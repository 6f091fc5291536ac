package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.util.List;

/**
 * The answer to {@code POST /tasks:apply} or {@code PUT /tasks/{id}}: every task of the request,
 * all applied or (on a 4xx) none.
 *
 * @param dryRun whether the tasks were only validated
 */
@Stability.Evolving
public record ApplyResult(boolean dryRun, List<Applied> tasks) {
  public ApplyResult {
    tasks = List.copyOf(tasks);
  }

  /**
   * One task of an apply.
   *
   * @param version the version after the apply (in a dry run, the stored one, 0 for a new task)
   * @param outcome {@code created}, {@code changed}, {@code unchanged} or {@code revived} (a
   *     deleted task applied again); {@code valid} in a dry run
   */
  @Stability.Evolving
  public record Applied(String id, long version, String outcome) {}
}
