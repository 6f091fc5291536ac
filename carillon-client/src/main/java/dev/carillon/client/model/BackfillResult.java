package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What a backfill found or did.
 *
 * @param windows the windows with a fire time in the range
 * @param created how many of them this call created (0 in a dry run)
 * @param existed how many existed already and were left untouched (0 in a dry run)
 * @param published how many created instances Kafka acknowledged now
 * @param windowKeys the keys of the windows (dry run) or of the created ones
 * @param zone the task's zone, in which {@code local} shows the times; null when unknown (the task
 *     was deleted, or it has no readable definition)
 * @param local the instants above that are set, on the task's wall clock with their offset (e.g.
 *     {@code 2026-03-29T10:00:00+02:00}), keyed by the field's name: {@code from}, {@code to};
 *     empty without a zone
 */
@Stability.Evolving
public record BackfillResult(
    String taskId,
    Instant from,
    Instant to,
    boolean dryRun,
    int windows,
    int created,
    int existed,
    int published,
    List<String> windowKeys,
    String zone,
    Map<String, String> local) {
  public BackfillResult {
    local = local == null ? Map.of() : Map.copyOf(local);
    windowKeys = List.copyOf(windowKeys);
  }
}
