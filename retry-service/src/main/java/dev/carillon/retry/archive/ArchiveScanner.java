package dev.carillon.retry.archive;

import dev.carillon.retry.RetryMetrics;
import dev.carillon.store.ArchiveStore;
import dev.carillon.store.Fence;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Housekeeping: moves finished instances older than the retention, with their events, to the
 * history tables, one batch (one transaction) per pass.
 */
public final class ArchiveScanner {
  private static final Logger log = LoggerFactory.getLogger(ArchiveScanner.class);

  private final ArchiveStore store;
  private final RetryMetrics metrics;
  private final Duration retention;
  private final int batchSize;

  public ArchiveScanner(
      ArchiveStore store, RetryMetrics metrics, Duration retention, int batchSize) {
    this.store = store;
    this.metrics = metrics;
    this.retention = retention;
    this.batchSize = batchSize;
  }

  /** One batch under the leader's {@code fence}; returns how many instances moved. */
  public int scan(Fence fence) {
    List<Long> moved = store.archiveFinished(retention, batchSize, fence);
    if (!moved.isEmpty()) {
      log.info(
          "Archived {} instance(s) finished more than {} ago, with their events",
          moved.size(),
          retention);
      metrics.archived(moved.size());
    }
    return moved.size();
  }
}
