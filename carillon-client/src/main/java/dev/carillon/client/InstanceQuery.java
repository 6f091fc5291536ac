package dev.carillon.client;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;

/**
 * A filter for listing instances ({@code GET /instances}); every part is optional. Build it with
 * the {@code with...} methods: {@code
 * InstanceQuery.all().withTask("daily-digest").withStatus("DEAD")}.
 *
 * @param task only this task's instances, or null
 * @param statuses only these statuses (e.g. {@code DEAD}); empty for any
 * @param origins only these origins (e.g. {@code MANUAL}); empty for any
 * @param from scheduled at or after this, or null
 * @param to scheduled before this, or null
 * @param pageSize instances per request, 1..500 (the server's default is 50)
 */
@Stability.Evolving
public record InstanceQuery(
    String task,
    List<String> statuses,
    List<String> origins,
    Instant from,
    Instant to,
    int pageSize) {
  /** The most instances one page holds. */
  public static final int MAX_PAGE = 500;

  public InstanceQuery {
    statuses = statuses == null ? List.of() : List.copyOf(statuses);
    origins = origins == null ? List.of() : List.copyOf(origins);
    if (pageSize < 1 || pageSize > MAX_PAGE) {
      throw new IllegalArgumentException(
          "pageSize must be between 1 and " + MAX_PAGE + ", was " + pageSize);
    }
  }

  /** Every instance, 100 per page. */
  public static InstanceQuery all() {
    return new InstanceQuery(null, List.of(), List.of(), null, null, 100);
  }

  public InstanceQuery withTask(String task) {
    return new InstanceQuery(task, statuses, origins, from, to, pageSize);
  }

  public InstanceQuery withStatus(String... statuses) {
    return new InstanceQuery(task, List.of(statuses), origins, from, to, pageSize);
  }

  public InstanceQuery withOrigin(String... origins) {
    return new InstanceQuery(task, statuses, List.of(origins), from, to, pageSize);
  }

  /** Scheduled in {@code [from, to)}; either may be null. */
  public InstanceQuery between(Instant from, Instant to) {
    return new InstanceQuery(task, statuses, origins, from, to, pageSize);
  }

  public InstanceQuery withPageSize(int pageSize) {
    return new InstanceQuery(task, statuses, origins, from, to, pageSize);
  }
}
