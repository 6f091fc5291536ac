package dev.carillon.schedctl;

import dev.carillon.model.instance.Instance;
import java.util.Optional;

/**
 * What {@code why} and {@code describe} add about a PENDING instance that no live, ready worker can
 * run: it waits (it is not failed), and the reason names the queue and handler nobody serves, with
 * what the running workers do serve ({@code PresenceStore#whyWaiting}).
 */
final class WorkerWait {
  private WorkerWait() {}

  /**
   * The reason {@code instance} waits for a worker, or empty when it does not (or is not PENDING).
   */
  static Optional<String> of(Db db, Instance instance) {
    return db.presence().whyWaiting(instance, db.tasks());
  }

  /** The sentence shown: "waiting for a worker: no worker serves queue ...". */
  static String sentence(String reason) {
    return "waiting for a worker: " + reason;
  }
}
