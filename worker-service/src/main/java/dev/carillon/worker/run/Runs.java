package dev.carillon.worker.run;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;

/**
 * The runs this worker holds, by instance id, and the capacity they take: {@code concurrency +
 * prefetch} instances claimed and not yet recorded as ended. Capacity is reserved before a claim's
 * runs are added and given back one by one as they {@link #retire}. Waiters ({@link #awaitFree},
 * the drains) are woken by {@link #signal}, which every change of a run's state calls.
 *
 * <p>Thread-safe.
 */
final class Runs {
  /** The longest a waiter sleeps between checks: state changes signal, a missed one costs this. */
  private static final long MAX_WAIT_MILLIS = 50;

  private final ConcurrentHashMap<Long, Run> byId = new ConcurrentHashMap<>();
  private final Semaphore capacity;
  private final Object changed = new Object();

  /**
   * @param capacity the most runs held at once
   */
  Runs(int capacity) {
    this.capacity = new Semaphore(capacity);
  }

  /** How many more instances may be claimed now. */
  int free() {
    return capacity.availablePermits();
  }

  /** Reserves room for {@code n} runs; false (and nothing reserved) when there is not enough. */
  boolean reserve(int n) {
    return capacity.tryAcquire(n);
  }

  /** Gives back room reserved for runs that were never added. */
  void unreserve(int n) {
    capacity.release(n);
  }

  /** Adds a run into room reserved for it. */
  void add(Run run) {
    byId.put(run.instance.id(), run);
  }

  /** The run of instance {@code id}, or {@code null}. */
  Run get(long id) {
    return byId.get(id);
  }

  /** Every run held now (a live view). */
  Collection<Run> all() {
    return byId.values();
  }

  /** Runs held: waiting, running, or having their end written. */
  int size() {
    return byId.size();
  }

  /** The run leaves the pool and gives its room back. */
  void retire(Run run) {
    byId.remove(run.instance.id(), run);
    capacity.release();
    signal();
  }

  /** Wakes the waiters: something they wait for may have changed. */
  void signal() {
    synchronized (changed) {
      changed.notifyAll();
    }
  }

  /** Waits until at least one more instance may be claimed, at most {@code timeout}. */
  boolean awaitFree(Duration timeout) throws InterruptedException {
    return await(timeout, () -> capacity.availablePermits() > 0);
  }

  /** Waits until no run is waiting, RUNNING or COMPLETING, at most {@code timeout}. */
  boolean awaitQuiet(Duration timeout) throws InterruptedException {
    return await(timeout, () -> byId.values().stream().noneMatch(r -> r.state().isActive()));
  }

  /** Waits until every run has left the pool, at most {@code timeout}. */
  boolean awaitEmpty(Duration timeout) throws InterruptedException {
    return await(timeout, byId::isEmpty);
  }

  private boolean await(Duration timeout, BooleanSupplier done) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    synchronized (changed) {
      while (!done.getAsBoolean()) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.wait(Math.max(1, Math.min(MAX_WAIT_MILLIS, left / 1_000_000)));
      }
      return true;
    }
  }
}
