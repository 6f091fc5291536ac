package dev.carillon.retry.scan;

import dev.carillon.model.instance.Instance;
import dev.carillon.retry.RetryMetrics;
import dev.carillon.retry.ratelimit.RepublishLimiter;
import dev.carillon.retry.ratelimit.RepublishLimiter.Verdict;
import dev.carillon.retry.ratelimit.ScanBudget;
import dev.carillon.store.Fence;
import dev.carillon.store.RetryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * PENDING instances no worker will hear about (see {@link RetryStore#stranded}) → published again,
 * within the rate limits. The right to publish is claimed by a compare-and-set on {@code
 * dispatched_at}; what Kafka does not acknowledge is unmarked and tried on the next pass. A
 * duplicate message is harmless: the workers' claim is a compare-and-set.
 */
public final class StrandedScanner {
  private final RetryStore store;
  private final RepublishLimiter limiter;
  private final Republisher republisher;
  private final RetryMetrics metrics;
  private final int batchSize;
  private final Duration undispatchedAfter;
  private final Duration strandedAfter;

  /** What one batch did. */
  public record Result(int republished, int heldBack) {}

  public StrandedScanner(
      RetryStore store,
      RepublishLimiter limiter,
      Republisher republisher,
      RetryMetrics metrics,
      int batchSize,
      Duration undispatchedAfter,
      Duration strandedAfter) {
    this.store = store;
    this.limiter = limiter;
    this.republisher = republisher;
    this.metrics = metrics;
    this.batchSize = batchSize;
    this.undispatchedAfter = undispatchedAfter;
    this.strandedAfter = strandedAfter;
  }

  /** One batch within {@code budget}, under the leader's {@code fence}. */
  public Result scan(ScanBudget budget, Fence fence) {
    List<Instance> candidates = store.stranded(undispatchedAfter, strandedAfter, batchSize);
    metrics.scanned(candidates.size());
    List<Long> admitted = new ArrayList<>();
    int held = 0;
    for (Instance i : candidates) {
      Verdict v = limiter.admit(i.taskId(), budget);
      if (v == Verdict.GRANTED) {
        admitted.add(i.id());
      } else {
        held++;
        metrics.heldBack(v);
      }
    }
    List<Instance> claimed =
        store.claimForDispatch(admitted, undispatchedAfter, strandedAfter, fence);
    List<Long> acked = republisher.publish(claimed);
    Set<Long> lost = new HashSet<>();
    claimed.forEach(i -> lost.add(i.id()));
    acked.forEach(lost::remove);
    store.unmarkDispatched(lost, fence);
    return new Result(acked.size(), held);
  }
}
