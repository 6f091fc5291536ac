package dev.carillon.worker.run;

import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * Bounds the statements run threads send at once (checkpoints, effect records, the reads a run
 * makes at its start), so that a worker with many more run slots than connections cannot starve its
 * own pool. Without it, 1,000 virtual-thread runs starting in the same second each asked the pool
 * of 8 for a connection, 664 waited, and those whose wait passed {@code db.connection-timeout}
 * failed (docs/benchmarks.md, "5,000 concurrent 60-second runs"). Behind the gate they wait in line
 * instead, in arrival order, for as long as their run lasts: a stop interrupts the wait.
 *
 * <p>The gate is as wide as the pool: the runs' statements keep the concurrency they had, and the
 * worker's own loops (the heartbeat, claims, end writes) wait in the pool behind at most that many
 * statements, not behind every run. (A first version left two connections to the loops; the fault
 * suite's workers, with a pool of 6 and 16 slots, then drained a backlog more slowly; not measured
 * apart, so the narrower gate was not kept.)
 *
 * <p>Thread-safe.
 */
final class StatementGate {
  private final Semaphore permits;

  /** A gate for a pool of {@code poolSize} connections. */
  static StatementGate forPool(int poolSize) {
    return new StatementGate(poolSize);
  }

  StatementGate(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("size must be at least 1, was " + size);
    }
    this.permits = new Semaphore(size, true);
  }

  /** Run threads waiting for their turn now (an estimate, for the gauge). */
  int waiting() {
    return permits.getQueueLength();
  }

  /**
   * Runs {@code call} once its turn comes.
   *
   * @throws InterruptedException when the thread is interrupted while it waits (its run was
   *     stopped); {@code call} was not made
   */
  <T> T through(Supplier<T> call) throws InterruptedException {
    permits.acquire();
    try {
      return call.get();
    } finally {
      permits.release();
    }
  }

  /**
   * Runs {@code call} once its turn comes, even if the thread is interrupted while it waits: for a
   * record that must be written although the run was stopped (an effect that was performed). The
   * interrupt is kept for the caller.
   */
  <T> T throughEvenIfInterrupted(Supplier<T> call) {
    permits.acquireUninterruptibly();
    try {
      return call.get();
    } finally {
      permits.release();
    }
  }
}
