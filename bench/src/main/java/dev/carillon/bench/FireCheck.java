package dev.carillon.bench;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Exactly-once check of a run.
 *
 * @param expected fires the workload asked for
 * @param executions handler calls seen
 * @param duplicates executions beyond one per expected fire
 * @param misses expected fires with no execution by the end of the run plus its grace
 * @param unexpected executions of fires that were never asked for (e.g. a drifted schedule)
 * @param lag for the expected fires that ran: first start minus scheduled instant
 */
public record FireCheck(
    long expected, long executions, long duplicates, long misses, long unexpected, LagStats lag) {

  /** Checks recorded fires against the expected set (steady: job and scheduled instant). */
  public static FireCheck byFire(Set<FireKey> expected, Map<FireKey, Recorder.Starts> seen) {
    long executions = 0;
    long duplicates = 0;
    long unexpected = 0;
    double[] lags = new double[seen.size()];
    int n = 0;
    for (Map.Entry<FireKey, Recorder.Starts> e : seen.entrySet()) {
      int count = e.getValue().count();
      executions += count;
      if (expected.contains(e.getKey())) {
        duplicates += count - 1;
        lags[n++] = Duration.between(e.getKey().scheduled(), e.getValue().first()).toNanos() / 1e6;
      } else {
        unexpected += count;
      }
    }
    long misses = expected.stream().filter(k -> !seen.containsKey(k)).count();
    return new FireCheck(
        expected.size(),
        executions,
        duplicates,
        misses,
        unexpected,
        LagStats.of(java.util.Arrays.copyOf(lags, n)));
  }

  /**
   * Checks recorded fires by job id only (burst: each id runs once, whatever instant the system
   * reports as scheduled). No lag: a burst measures throughput.
   */
  public static FireCheck byJob(Set<String> expectedIds, Map<FireKey, Recorder.Starts> seen) {
    long executions = 0;
    long unexpected = 0;
    Set<String> ran = new HashSet<>();
    for (Map.Entry<FireKey, Recorder.Starts> e : seen.entrySet()) {
      int count = e.getValue().count();
      executions += count;
      if (expectedIds.contains(e.getKey().jobId())) {
        ran.add(e.getKey().jobId());
      } else {
        unexpected += count;
      }
    }
    long duplicates = executions - unexpected - ran.size();
    long misses = expectedIds.size() - ran.size();
    return new FireCheck(
        expectedIds.size(), executions, duplicates, misses, unexpected, LagStats.NONE);
  }

  public boolean exact() {
    return duplicates == 0 && misses == 0 && unexpected == 0;
  }
}
