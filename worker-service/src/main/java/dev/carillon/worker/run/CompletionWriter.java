package dev.carillon.worker.run;

import dev.carillon.loop.Pace;
import dev.carillon.loop.PeriodicLoop;
import dev.carillon.loop.PeriodicLoop.StopMode;
import dev.carillon.model.retry.ExponentialBackoff;
import dev.carillon.store.AttemptEnd;
import dev.carillon.store.Lease;
import dev.carillon.store.LeaseStore;
import dev.carillon.worker.WorkerMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the ends of runs in groups, on its own thread: whatever ends are queued when the thread
 * comes round (at most {@code maxBatch}) go to the database in one {@link LeaseStore#completeAll}
 * transaction, each row still fenced by its attempt. Nothing waits for a group to fill: ends that
 * arrive while a group is being written form the next one. Whoever submits an end gets a future
 * that says whether its row was written.
 *
 * <p>While the database cannot be reached the group is tried again, with a short, growing pause,
 * and each end only until its lease length has passed since it was submitted (past it the retry
 * service has moved the instance on, and the fenced write would change nothing): such an end's
 * future fails with the last error. Ends submitted meanwhile wait in the queue; none is dropped.
 * The queue holds at most {@code maxQueued} ends: one per run the pool holds, since a run holds its
 * room until its end is written.
 *
 * <p>Thread-safe. {@link #close} fails the ends not yet written.
 */
public final class CompletionWriter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CompletionWriter.class);

  /**
   * The pauses between two tries of a group: 50 ms, doubling, at most 2 s. A database restart takes
   * seconds; a short, growing pause keeps the load low meanwhile.
   */
  static final ExponentialBackoff BACKOFF =
      ExponentialBackoff.doubling(Duration.ofMillis(50), Duration.ofSeconds(2));

  private static final class Pending {
    final AttemptEnd completion;
    final long giveUpAt;
    final CompletableFuture<Boolean> written = new CompletableFuture<>();
    boolean retried;

    Pending(AttemptEnd completion, long giveUpAt) {
      this.completion = completion;
      this.giveUpAt = giveUpAt;
    }
  }

  private final LeaseStore store;
  private final WorkerMetrics metrics;
  private final String actor;
  private final int maxBatch;
  private final LinkedBlockingQueue<Pending> queue;
  private final PeriodicLoop loop;
  private volatile boolean closed;

  /**
   * Starts the writer thread.
   *
   * @param store where ends are written
   * @param metrics {@code endWriteRetries} counts ends whose first try failed
   * @param actor the worker id, recorded in each end's event
   * @param maxBatch the most ends in one group
   * @param maxQueued the most ends waiting at once
   */
  public CompletionWriter(
      LeaseStore store, WorkerMetrics metrics, String actor, int maxBatch, int maxQueued) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be at least 1, was " + maxBatch);
    }
    if (maxQueued < 1) {
      throw new IllegalArgumentException("maxQueued must be at least 1, was " + maxQueued);
    }
    this.store = store;
    this.metrics = metrics;
    this.actor = actor;
    this.maxBatch = maxBatch;
    this.queue = new LinkedBlockingQueue<>(maxQueued);
    // No pause between rounds: each round waits in the queue for the next end.
    this.loop =
        new PeriodicLoop(
            "carillon-completions-" + actor,
            Pace.fixedDelay(Duration.ZERO),
            StopMode.INTERRUPT,
            this::writeNextGroup);
    loop.start();
  }

  /**
   * Queues the end of an attempt.
   *
   * @param leaseLength how long to keep trying while the database is unreachable
   * @return completes with whether the row was written ({@code false}: the attempt was stale or the
   *     row no longer RUNNING), or fails with the last error once {@code leaseLength} has passed or
   *     the writer closed
   */
  public CompletableFuture<Boolean> submit(AttemptEnd completion, Duration leaseLength) {
    Pending p = new Pending(completion, System.nanoTime() + leaseLength.toNanos());
    if (closed) {
      p.written.completeExceptionally(new IllegalStateException("the completion writer is closed"));
      return p.written;
    }
    if (!queue.offer(p)) {
      p.written.completeExceptionally(
          new IllegalStateException(
              "the completion writer holds "
                  + queue.size()
                  + " end(s) already, its maximum: more ends than runs"));
      return p.written;
    }
    if (closed) {
      // close() raced with the add; make sure nothing waits forever.
      failQueued(new IllegalStateException("the completion writer is closed"));
    }
    return p.written;
  }

  /** One round of the writer's loop: waits for an end, then writes it with whatever else waits. */
  private void writeNextGroup() throws InterruptedException {
    List<Pending> group = new ArrayList<>();
    try {
      group.add(queue.take());
      queue.drainTo(group, maxBatch - 1);
      write(group);
    } catch (InterruptedException e) {
      fail(group, new IllegalStateException("the completion writer was interrupted", e));
      throw e;
    } catch (Throwable t) {
      // Nobody may wait forever on a future this thread owns.
      log.error("Writing {} end(s) failed unexpectedly: {}", group.size(), t.toString());
      fail(group, t);
    }
  }

  private void write(List<Pending> group) throws InterruptedException {
    int failedTries = 0;
    boolean warned = false;
    while (!group.isEmpty()) {
      try {
        Set<Lease> written =
            store.completeAll(group.stream().map(p -> p.completion).toList(), actor);
        for (Pending p : group) {
          p.written.complete(written.contains(p.completion.lease()));
        }
        if (warned) {
          log.info("{} end(s) were recorded after the database came back", group.size());
        }
        return;
      } catch (RuntimeException e) {
        long now = System.nanoTime();
        for (Iterator<Pending> it = group.iterator(); it.hasNext(); ) {
          Pending p = it.next();
          if (!p.retried) {
            p.retried = true;
            metrics.endWriteRetries.increment();
          }
          if (now - p.giveUpAt >= 0) {
            p.written.completeExceptionally(e);
            it.remove();
          }
        }
        if (!warned && !group.isEmpty()) {
          warned = true;
          log.warn(
              "Could not record {} end(s) ({}); trying again until their leases would end",
              group.size(),
              e.toString());
        }
        if (group.isEmpty()) {
          return;
        }
        if (closed) {
          fail(group, e);
          return;
        }
        Thread.sleep(BACKOFF.delay(failedTries++).toMillis());
      }
    }
  }

  private static void fail(List<Pending> group, Throwable t) {
    for (Pending p : group) {
      p.written.completeExceptionally(t);
    }
  }

  private void failQueued(Throwable t) {
    List<Pending> left = new ArrayList<>();
    queue.drainTo(left);
    fail(left, t);
  }

  /**
   * Stops the writer: a group being written is finished or failed, and ends still queued fail.
   * Callers wait for their runs' ends before closing (see {@link RunPool#awaitQuiet}).
   */
  @Override
  public void close() {
    closed = true;
    loop.stopAndWait(Duration.ofSeconds(5));
    failQueued(new IllegalStateException("the completion writer is closed"));
  }
}
