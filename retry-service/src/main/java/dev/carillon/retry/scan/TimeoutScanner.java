package dev.carillon.retry.scan;

import dev.carillon.logging.InstanceMdc;
import dev.carillon.model.instance.Instance;
import dev.carillon.retry.RetryMetrics;
import dev.carillon.store.Fence;
import dev.carillon.store.RetryStore;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RUNNING with an expired lease (database time) → TIMEOUT: the worker died or froze. The move skips
 * rows another scanner holds and re-checks the status, so two copies never move one row.
 */
public final class TimeoutScanner {
  private static final Logger log = LoggerFactory.getLogger(TimeoutScanner.class);

  private final RetryStore store;
  private final RetryMetrics metrics;
  private final int batchSize;
  private final String actor;

  public TimeoutScanner(RetryStore store, RetryMetrics metrics, int batchSize, String actor) {
    this.store = store;
    this.metrics = metrics;
    this.batchSize = batchSize;
    this.actor = actor;
  }

  /** One batch under the leader's {@code fence}; returns how many instances timed out. */
  public int scan(Fence fence) {
    List<Instance> moved = store.expireLeases(batchSize, actor, fence);
    for (Instance i : moved) {
      try (InstanceMdc mdc = InstanceMdc.instance(i.taskId(), i.windowKey(), i.id(), i.attempt())) {
        log.warn(
            "Instance {} of task {} window {} timed out: lease of attempt {} held by {} expired",
            i.id(),
            i.taskId(),
            i.windowKey(),
            i.attempt(),
            i.workerId());
      }
    }
    metrics.scanned(moved.size());
    metrics.timedOut(moved.size());
    return moved.size();
  }
}
