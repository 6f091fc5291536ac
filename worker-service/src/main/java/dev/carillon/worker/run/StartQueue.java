package dev.carillon.worker.run;

import java.util.ArrayDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claimed runs waiting for a thread, started in claim order while fewer than {@code concurrency}
 * run. Threads are reused: a thread that finishes a run keeps its slot and takes the next waiting
 * run itself, so that a burst of short runs does not hand every run to a new thread (a thread start
 * costs more than a short run).
 *
 * <p>The queue holds only runs whose room {@link Runs} reserved, so it is bounded by the pool's
 * capacity. After {@link #stopStarting} nothing more starts. Thread-safe.
 */
final class StartQueue implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(StartQueue.class);

  private final ArrayDeque<Run> queue = new ArrayDeque<>();
  private final Semaphore threadSlots;
  private final ExecutorService threads;
  private final Runner runner;
  private final Runs runs;

  /** Cleared at shutdown, before instances are released: from then on nothing new starts. */
  private volatile boolean starting = true;

  /**
   * @param concurrency the most runs at once
   * @param threadName the name of the run threads
   * @param runner runs one run on the calling thread
   * @param runs where a run that never starts leaves the pool
   * @param virtualThreads run on virtual threads where the JDK has them ({@link RunThreads})
   */
  StartQueue(int concurrency, String threadName, Runner runner, Runs runs, boolean virtualThreads) {
    this.threadSlots = new Semaphore(concurrency);
    // Unbounded only in principle: at most `concurrency` run at once, plus the threads of stopped
    // plugins that ignore interrupts.
    this.threads = RunThreads.executor(threadName, virtualThreads);
    this.runner = runner;
    this.runs = runs;
  }

  /** Queues a run behind those already waiting; {@link #startWaiting} starts it. */
  void add(Run run) {
    synchronized (queue) {
      queue.add(run);
    }
  }

  /** Starts waiting runs while thread slots are free. */
  void startWaiting() {
    while (true) {
      Run next;
      synchronized (queue) {
        if (!starting || queue.isEmpty() || !threadSlots.tryAcquire()) {
          return;
        }
        next = queue.poll();
      }
      try {
        threads.execute(() -> work(next));
      } catch (RejectedExecutionException e) {
        // Closed: the run stays QUEUED with its lease, which expires without heartbeats.
        threadSlots.release();
        log.warn("{} was not started: the pool is closed", next);
        return;
      }
    }
  }

  /**
   * A run thread's loop: runs {@code first}, then keeps its slot and takes the next waiting run
   * itself.
   */
  private void work(Run first) {
    Run run = first;
    while (run != null) {
      runner.run(run);
      synchronized (queue) {
        run = starting ? queue.poll() : null;
      }
    }
    threadSlots.release();
    runs.signal();
    // Something queued after the poll above found the queue empty, while this thread still held
    // its slot, is started here.
    startWaiting();
  }

  /**
   * Takes a run that will never start (its lease was lost or it was released while waiting) out of
   * the queue and the pool.
   */
  void withdraw(Run run) {
    synchronized (queue) {
      queue.remove(run);
    }
    if (run.threadEnded()) {
      runs.retire(run);
    }
  }

  /** From now on nothing new starts; runs already started go on. */
  void stopStarting() {
    starting = false;
  }

  /** Takes no more runs; threads still running plugins keep going (they are daemons). */
  @Override
  public void close() {
    threads.shutdown();
  }
}
