package dev.carillon.worker.exec;

import java.time.Duration;

/**
 * The bounds on what an exec agent's output costs the worker.
 *
 * @param maxLineBytes the longest stdout line read; a longer one is cut there, and a cut protocol
 *     line is ignored (counted)
 * @param maxStdoutBytes how much of stdout is read for protocol lines; the rest is drained unread
 * @param stderrTailBytes how much of the end of stderr is kept for the failure reason
 * @param killWait how long a stop waits for the tree to go after SIGKILL before it gives up on it
 */
public record ExecLimits(
    int maxLineBytes, long maxStdoutBytes, int stderrTailBytes, Duration killWait) {
  /** The bounds unless configured: 16 KiB lines, 1 MiB of stdout, 2 KiB of stderr, 5 s. */
  public static final ExecLimits DEFAULTS =
      new ExecLimits(16 * 1024, 1024 * 1024, 2 * 1024, Duration.ofSeconds(5));

  public ExecLimits {
    if (maxLineBytes < 256) {
      throw new IllegalArgumentException("maxLineBytes must be at least 256, was " + maxLineBytes);
    }
    if (maxStdoutBytes < maxLineBytes) {
      throw new IllegalArgumentException(
          "maxStdoutBytes must be at least maxLineBytes, was " + maxStdoutBytes);
    }
    if (stderrTailBytes < 64) {
      throw new IllegalArgumentException(
          "stderrTailBytes must be at least 64, was " + stderrTailBytes);
    }
    if (killWait.isNegative()) {
      throw new IllegalArgumentException("killWait must not be negative, was " + killWait);
    }
  }
}
