package dev.carillon.store;

import dev.carillon.model.CarillonException;

/**
 * A write under {@link Fence} {@code fence} was refused because another leader has taken a newer
 * epoch: nothing of it was written (a transaction is rolled back whole). The writer is no longer
 * the leader, whatever its own view says, and must stop leading.
 */
public final class FencedException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final transient Fence fence;
  private final String write;

  public FencedException(Fence fence, String write) {
    super(
        write
            + " refused: "
            + fence
            + " is no longer current (another leader took over); nothing was written");
    this.fence = fence;
    this.write = write;
  }

  /** The fence the refused write carried. */
  public Fence fence() {
    return fence;
  }

  /** What was refused, e.g. {@code tick commit} or {@code retry decision}. */
  public String write() {
    return write;
  }
}
