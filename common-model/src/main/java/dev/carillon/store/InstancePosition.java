package dev.carillon.store;

import java.time.Instant;
import java.util.Objects;

/**
 * A place in the list of instances ordered newest scheduled first: the last row of a page. The next
 * page starts after it, by {@code (scheduled_at, id)}, so rows inserted meanwhile neither shift nor
 * repeat the pages.
 */
public record InstancePosition(Instant scheduledAt, long id) {
  public InstancePosition {
    Objects.requireNonNull(scheduledAt, "scheduledAt");
  }
}
