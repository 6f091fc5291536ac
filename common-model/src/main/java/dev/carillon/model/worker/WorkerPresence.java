package dev.carillon.model.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A worker as its presence row shows it: what it serves, whether it is ready, and when it last said
 * so. A worker refreshes its row every {@link #REFRESH} while it runs and deletes it when it stops;
 * a row not refreshed for {@link #EXPIRY} counts as gone (the worker was killed or cut off).
 *
 * @param workerId the worker's id ({@code instance.id})
 * @param queues the queues it serves
 * @param handlers the handlers it can run
 * @param ready whether it takes work (false while it starts, stops, or has given up on hung runs)
 * @param freeSlots how many more instances it could claim at its last refresh
 * @param startedAt when it registered (database time)
 * @param lastSeen its last refresh (database time)
 */
public record WorkerPresence(
    String workerId,
    Set<String> queues,
    Set<String> handlers,
    boolean ready,
    int freeSlots,
    Instant startedAt,
    Instant lastSeen) {

  /** How often a running worker refreshes its row. */
  public static final Duration REFRESH = Duration.ofSeconds(5);

  /**
   * How long a row stays live without a refresh: several refreshes, so that one slow statement does
   * not make a worker look gone.
   */
  public static final Duration EXPIRY = Duration.ofSeconds(30);

  public WorkerPresence {
    Objects.requireNonNull(workerId, "workerId");
    queues = Set.copyOf(queues);
    handlers = Set.copyOf(handlers);
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(lastSeen, "lastSeen");
  }

  /** Whether this worker claims instances of tasks in {@code queue} with {@code handler}. */
  public boolean serves(String queue, String handler) {
    return queues.contains(queue) && handlers.contains(handler);
  }

  /** Whether the row was refreshed within {@link #EXPIRY} before {@code now}. */
  public boolean liveAt(Instant now) {
    return lastSeen.isAfter(now.minus(EXPIRY));
  }

  /** The queues, sorted, for messages. */
  public Set<String> sortedQueues() {
    return new TreeSet<>(queues);
  }

  /** The handlers, sorted, for messages. */
  public Set<String> sortedHandlers() {
    return new TreeSet<>(handlers);
  }
}
