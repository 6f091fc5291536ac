package dev.carillon.worker.presence;

import dev.carillon.loop.Pace;
import dev.carillon.loop.PeriodicLoop;
import dev.carillon.loop.PeriodicLoop.StopMode;
import dev.carillon.model.worker.Serves;
import dev.carillon.model.worker.WorkerPresence;
import dev.carillon.store.PresenceStore;
import dev.carillon.worker.DatabaseWatch;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this worker's presence row ({@link WorkerPresence}): registers what it serves at start,
 * refreshes readiness and free slots every {@link WorkerPresence#REFRESH}, registers again when the
 * row was removed meanwhile, and removes the row when the worker stops. Rows of workers gone for
 * more than {@link #PURGE_AFTER} are deleted on the way, so that the table does not keep every
 * worker that ever ran. A refresh that fails is logged once per outage; the row then expires, which
 * is what other services should see of a worker cut off from the database.
 */
public final class PresenceBeacon implements AutoCloseable {
  /** Rows not refreshed for this long are deleted by any worker's refresh. */
  public static final Duration PURGE_AFTER = Duration.ofDays(1);

  private static final Logger log = LoggerFactory.getLogger(PresenceBeacon.class);

  private final PresenceStore store;
  private final String workerId;
  private final Serves serves;
  private final BooleanSupplier ready;
  private final IntSupplier freeSlots;
  private final DatabaseWatch database;
  private final PeriodicLoop loop;
  private boolean registered;
  private boolean failing;
  private int rounds;

  /**
   * @param ready whether the worker takes work now
   * @param freeSlots how many more instances it could claim now
   * @param database told whether each refresh worked
   */
  public PresenceBeacon(
      PresenceStore store,
      String workerId,
      Serves serves,
      BooleanSupplier ready,
      IntSupplier freeSlots,
      DatabaseWatch database) {
    this.store = store;
    this.workerId = workerId;
    this.serves = serves;
    this.ready = ready;
    this.freeSlots = freeSlots;
    this.database = database;
    this.loop =
        new PeriodicLoop(
            "carillon-presence-" + workerId,
            Pace.fixedDelay(WorkerPresence.REFRESH),
            StopMode.FINISH_ROUND,
            this::round);
  }

  /** Registers at once (failures are retried by the loop), then starts refreshing. */
  public void start() {
    round();
    loop.start();
  }

  /** Refreshes the row now, e.g. when the worker stops being ready. */
  public synchronized void round() {
    try {
      if (!registered || !store.refresh(workerId, ready.getAsBoolean(), freeSlots.getAsInt())) {
        store.register(
            workerId,
            serves.queues(),
            serves.handlers(),
            ready.getAsBoolean(),
            freeSlots.getAsInt());
        if (!registered) {
          log.info(
              "Registered worker {}: queues {}, handlers {}",
              workerId,
              serves.sortedQueues(),
              serves.sortedHandlers());
        }
        registered = true;
      }
      if (rounds++ % 720 == 0) {
        int purged = store.purge(PURGE_AFTER);
        if (purged > 0) {
          log.info("Deleted {} presence row(s) of workers gone for over {}", purged, PURGE_AFTER);
        }
      }
      database.succeeded();
      if (failing) {
        log.info("Presence of worker {} refreshed again", workerId);
        failing = false;
      }
    } catch (RuntimeException e) {
      database.failed();
      if (!failing) {
        log.warn(
            "Could not refresh the presence of worker {}; retrying every {}: {}",
            workerId,
            WorkerPresence.REFRESH,
            e.toString());
      }
      failing = true;
    }
  }

  /** Stops refreshing and removes the row, so that other services see this worker gone at once. */
  @Override
  public void close() {
    loop.stopAndWait(Duration.ofSeconds(5));
    try {
      store.remove(workerId);
    } catch (RuntimeException e) {
      log.warn(
          "Could not remove the presence of worker {}; it expires after {}: {}",
          workerId,
          WorkerPresence.EXPIRY,
          e.toString());
    }
  }
}
