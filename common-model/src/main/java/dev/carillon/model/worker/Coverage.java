package dev.carillon.model.worker;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Whether some worker can run instances of a task, told in words when none can: an instance that no
 * live, ready worker serves waits PENDING (it is not failed), and {@code schedctl why} and {@code
 * describe} say why with {@link #waitingReason}. Pure: the caller reads the presence rows.
 */
public final class Coverage {
  private Coverage() {}

  /** Whether a live, ready worker in {@code workers} serves {@code queue} with {@code handler}. */
  public static boolean covered(
      String queue, String handler, Collection<WorkerPresence> workers, Instant now) {
    return workers.stream().anyMatch(w -> w.ready() && w.liveAt(now) && w.serves(queue, handler));
  }

  /**
   * Why instances of a task in {@code queue} with {@code handler} wait for a worker, or empty when
   * a live, ready worker serves them. The sentence starts with "no worker serves queue Q with
   * handler H" and adds what the live workers do serve, so the fix (start a worker, add a plugin,
   * move the task) can be read off it.
   *
   * @param workers the presence rows (expired ones are ignored)
   * @param now the database time the rows were read at
   */
  public static Optional<String> waitingReason(
      String queue, String handler, Collection<WorkerPresence> workers, Instant now) {
    if (covered(queue, handler, workers, now)) {
      return Optional.empty();
    }
    String head = "no worker serves queue " + queue + " with handler " + handler;
    List<WorkerPresence> live = workers.stream().filter(w -> w.liveAt(now)).toList();
    if (live.isEmpty()) {
      return Optional.of(head + " (no worker is running)");
    }
    List<WorkerPresence> unready = live.stream().filter(w -> w.serves(queue, handler)).toList();
    if (!unready.isEmpty()) {
      return Optional.of(
          head
              + " that is ready ("
              + unready.stream()
                  .map(WorkerPresence::workerId)
                  .sorted()
                  .collect(Collectors.joining(", "))
              + (unready.size() == 1 ? " serves it but is" : " serve it but are")
              + " not ready)");
    }
    List<WorkerPresence> inQueue = live.stream().filter(w -> w.queues().contains(queue)).toList();
    if (!inQueue.isEmpty()) {
      return Optional.of(
          head
              + " (queue "
              + queue
              + " is served by "
              + inQueue.stream()
                  .map(
                      w -> w.workerId() + " with handlers " + String.join(", ", w.sortedHandlers()))
                  .collect(Collectors.joining("; "))
              + ")");
    }
    List<WorkerPresence> withHandler =
        live.stream().filter(w -> w.handlers().contains(handler)).toList();
    if (!withHandler.isEmpty()) {
      return Optional.of(
          head
              + " (handler "
              + handler
              + " is on "
              + withHandler.stream()
                  .map(
                      w -> w.workerId() + ", serving queues " + String.join(", ", w.sortedQueues()))
                  .collect(Collectors.joining("; "))
              + ")");
    }
    return Optional.of(
        head
            + " (running workers serve queues "
            + String.join(
                ", ",
                live.stream()
                    .flatMap(w -> w.queues().stream())
                    .collect(Collectors.toCollection(java.util.TreeSet::new)))
            + ")");
  }
}
