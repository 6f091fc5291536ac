package dev.carillon.schedctl;

import java.time.Duration;

/** Waiting is IO: commands that pace themselves ({@code backfill --rate}) sleep through this. */
@FunctionalInterface
public interface Sleeper {
  /** Blocks for {@code duration} (a zero or negative duration returns at once). */
  void sleep(Duration duration) throws InterruptedException;

  /** The real thing. */
  static Sleeper system() {
    return d -> {
      if (!d.isNegative() && !d.isZero()) {
        Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
      }
    };
  }
}
