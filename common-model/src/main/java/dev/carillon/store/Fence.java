package dev.carillon.store;

import java.util.Objects;

/**
 * A leader's fencing token: the epoch of {@code service} that this leader took when its term began
 * ({@link EpochStore#begin}). Every write that only the leader may make carries it, and PostgreSQL
 * applies such a write only while the stored epoch is still this one, checked in the same
 * statement. A leader that was deposed while it could not tell (frozen, partitioned from ZooKeeper)
 * therefore writes nothing once a successor has taken a newer epoch: its statements change no row
 * and the store throws {@link FencedException}.
 *
 * @param service the leader-elected service, e.g. {@code trigger} or {@code retry}
 * @param epoch the epoch, positive; a successor's is larger
 */
public record Fence(String service, long epoch) {
  public Fence {
    Objects.requireNonNull(service, "service");
    if (epoch < 1) {
      throw new IllegalArgumentException("epoch must be positive, was " + epoch);
    }
  }

  @Override
  public String toString() {
    return service + " epoch " + epoch;
  }
}
