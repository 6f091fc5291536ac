package dev.carillon.bench;

import java.time.Duration;

/**
 * One stage of a scheduler's pipeline in a burst, e.g. "insert" or "claim+complete".
 *
 * @param count instances that passed the stage
 * @param elapsed from the first instance entering the stage to the last leaving it
 */
public record Stage(String name, long count, Duration elapsed) {
  public double perSecond() {
    return elapsed.isZero() ? Double.NaN : count / (elapsed.toNanos() / 1e9);
  }
}
