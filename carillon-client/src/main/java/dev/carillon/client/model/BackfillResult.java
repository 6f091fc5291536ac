package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;

/**
 * What a backfill found or did.
 *
 * @param windows the windows with a fire time in the range
 * @param created how many of them this call created (0 in a dry run)
 * @param existed how many existed already and were left untouched (0 in a dry run)
 * @param published how many created instances Kafka acknowledged now
 * @param windowKeys the keys of the windows (dry run) or of the created ones
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
    List<String> windowKeys) {
  public BackfillResult {
    windowKeys = List.copyOf(windowKeys);
  }
}
