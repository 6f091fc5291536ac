package dev.carillon.bench.exec;

import java.util.ArrayList;
import java.util.List;

/**
 * Which partition each run's message goes to, so that every worker gets exactly its share. Each
 * worker's {@code worker.concurrency} is the runs split evenly (rounded up) and nothing is
 * prefetched, so a worker sent one message more than its share would leave that run waiting for a
 * free slot until a sleep ended; the publisher's own choice (a random partition per message) and
 * the group's assignment (whole partitions per member) would do that. The bench therefore reads the
 * group's assignment and sends each worker's share to its own partitions, round robin.
 */
final class PartitionSpread {
  private PartitionSpread() {}

  /**
   * The partition of each of {@code runs} messages: message {@code i} goes to worker {@code i mod
   * K}, and worker {@code j}'s messages go round robin over its partitions, so worker {@code j}
   * gets {@code runs / K} messages, one more for the first {@code runs mod K} workers.
   *
   * @param partitionsByWorker the partitions assigned to each of the K workers, in a fixed order
   * @throws IllegalArgumentException when a worker has no partition
   */
  static List<Integer> plan(int runs, List<List<Integer>> partitionsByWorker) {
    int k = partitionsByWorker.size();
    if (k == 0) {
      throw new IllegalArgumentException("no worker to spread " + runs + " runs over");
    }
    for (int j = 0; j < k; j++) {
      if (partitionsByWorker.get(j).isEmpty()) {
        throw new IllegalArgumentException("worker " + j + " of " + k + " has no partition");
      }
    }
    List<Integer> out = new ArrayList<>(runs);
    for (int i = 0; i < runs; i++) {
      List<Integer> own = partitionsByWorker.get(i % k);
      out.add(own.get((i / k) % own.size()));
    }
    return out;
  }

  /** How many of the runs worker {@code j} of {@code k} gets. */
  static int share(int runs, int k, int j) {
    return runs / k + (j < runs % k ? 1 : 0);
  }
}
