package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;

/**
 * The answer to a task delete.
 *
 * @param version the version the delete wrote
 * @param deletedAt when it was deleted
 * @param cancelled the live instances cancelled with it ({@code live=cancel}), else empty
 */
@Stability.Evolving
public record DeleteResult(String taskId, long version, Instant deletedAt, List<Long> cancelled) {
  public DeleteResult {
    cancelled = List.copyOf(cancelled);
  }
}
