package dev.carillon.retry.ratelimit;

/**
 * What one scan pass may still republish: {@code maxPerScan} at the start, shared by every scanner
 * of the pass. Used by one thread at a time (the pass).
 */
public final class ScanBudget {
  private int left;

  public ScanBudget(int maxPerScan) {
    if (maxPerScan < 0) {
      throw new IllegalArgumentException("maxPerScan must not be negative: " + maxPerScan);
    }
    this.left = maxPerScan;
  }

  /** Messages this pass may still send. */
  public int left() {
    return left;
  }

  boolean take() {
    if (left <= 0) {
      return false;
    }
    left--;
    return true;
  }
}
