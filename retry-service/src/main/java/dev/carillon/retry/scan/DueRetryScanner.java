package dev.carillon.retry.scan;

import dev.carillon.model.instance.Instance;
import dev.carillon.retry.RetryMetrics;
import dev.carillon.retry.ratelimit.RepublishLimiter;
import dev.carillon.retry.ratelimit.RepublishLimiter.Verdict;
import dev.carillon.retry.ratelimit.ScanBudget;
import dev.carillon.store.Fence;
import dev.carillon.store.RetryStore;
import java.util.ArrayList;
import java.util.List;

/**
 * RETRY_WAIT whose {@code next_attempt_at} has come (database time) → PENDING with {@code
 * retry_count + 1}, then republished.
 *
 * <p>It promotes no more than the global bucket and the pass allow, so a backlog waits in
 * RETRY_WAIT rather than flooding the workers. A promoted instance that its task's own limit holds
 * back stays PENDING and undispatched; the {@link StrandedScanner} publishes it once the task's
 * bucket refills. The promotion skips rows another scanner holds, so each due retry is promoted,
 * and counted, once.
 */
public final class DueRetryScanner {
  private final RetryStore store;
  private final RepublishLimiter limiter;
  private final Republisher republisher;
  private final RetryMetrics metrics;
  private final int batchSize;
  private final String actor;

  /** What one batch did. */
  public record Result(int promoted, int republished, int heldBack) {}

  public DueRetryScanner(
      RetryStore store,
      RepublishLimiter limiter,
      Republisher republisher,
      RetryMetrics metrics,
      int batchSize,
      String actor) {
    this.store = store;
    this.limiter = limiter;
    this.republisher = republisher;
    this.metrics = metrics;
    this.batchSize = batchSize;
    this.actor = actor;
  }

  /** One batch within {@code budget}, under the leader's {@code fence}. */
  public Result scan(ScanBudget budget, Fence fence) {
    int room = Math.min(batchSize, Math.min(budget.left(), limiter.globalAvailable()));
    List<Instance> promoted = store.promoteDueRetries(room, actor, fence);
    metrics.scanned(promoted.size());
    List<Instance> go = new ArrayList<>(promoted.size());
    int held = 0;
    if (room < batchSize) {
      // Due retries left waiting because the bucket or the pass had no room: make them visible.
      Verdict why = budget.left() <= room ? Verdict.HELD_SCAN_MAX : Verdict.HELD_GLOBAL;
      int backlog = store.countDueRetries();
      metrics.heldBack(why, backlog);
      held += backlog;
    }
    for (Instance i : promoted) {
      Verdict v = limiter.admit(i.taskId(), budget);
      if (v == Verdict.GRANTED) {
        go.add(i);
      } else {
        held++;
        metrics.heldBack(v);
      }
    }
    List<Long> acked = republisher.publish(go);
    store.markDispatched(acked, fence);
    return new Result(promoted.size(), acked.size(), held);
  }
}
