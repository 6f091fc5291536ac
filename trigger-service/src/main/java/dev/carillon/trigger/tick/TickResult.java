package dev.carillon.trigger.tick;

import dev.carillon.model.instance.Instance;
import dev.carillon.store.Decision;
import dev.carillon.trigger.plan.TickPlan;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What one tick did.
 *
 * @param now the tick's instant
 * @param plan what the planner asked for
 * @param created the rows the database actually created (PENDING and SKIPPED)
 * @param existing "window exists" decisions for planned rows whose insert was a no-op
 * @param committed false when leadership was lost before the commit and nothing was written
 * @param took how long the tick took
 */
public record TickResult(
    Instant now,
    TickPlan plan,
    List<Instance> created,
    List<Decision> existing,
    boolean committed,
    Duration took) {
  public TickResult {
    created = List.copyOf(created);
    existing = List.copyOf(existing);
  }
}
