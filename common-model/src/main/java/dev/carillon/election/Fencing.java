package dev.carillon.election;

import dev.carillon.store.Fence;
import dev.carillon.store.FencedException;
import java.util.Objects;

/**
 * Where a leader-only round gets the fence its writes carry ({@link #fence()}) and where it reports
 * a write that the fence refused ({@link #fenced}). {@link LeaderTerm} is the production source;
 * {@link #fixed} serves components driven directly (tests, tools that lead by construction).
 */
public interface Fencing {
  /**
   * The fence of the current leadership term, taken on first use.
   *
   * @throws NotLeaderException when this instance does not lead; the round writes nothing
   */
  Fence fence();

  /**
   * A write under {@code e.fence()} was refused: another leader has a newer epoch. Logs it once,
   * counts it and forgets the fence, so that the next round asks for leadership again.
   */
  void fenced(FencedException e);

  /** Always {@code fence}; refusals are only counted by the caller's exception. */
  static Fencing fixed(Fence fence) {
    Objects.requireNonNull(fence, "fence");
    return new Fencing() {
      @Override
      public Fence fence() {
        return fence;
      }

      @Override
      public void fenced(FencedException e) {}
    };
  }
}
