package dev.carillon.model.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A business window: the identity of one instance of a task.
 *
 * <p>A window is normally half-open, {@code [start, end)}. The zero-length window of {@link
 * WindowKind#EVERY_FIRE} ({@code start == end}) is closed, {@code [start, start]}: it contains
 * exactly its one instant, so that every window contains the fire time it was made from.
 *
 * @param key the window key, unique per task (e.g. {@code 2026-11-29}); 1 to 64 characters
 * @param start inclusive start instant
 * @param end exclusive end instant, or equal to {@code start} for a one-instant window
 */
public record Window(String key, Instant start, Instant end) {
  /** Longest key, matching the width of the {@code window_key} column. */
  public static final int MAX_KEY_LENGTH = 64;

  public Window {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(end, "end");
    if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException(
          "window key must have 1.." + MAX_KEY_LENGTH + " characters: '" + key + "'");
    }
    if (end.isBefore(start)) {
      throw new IllegalArgumentException("window end " + end + " is before start " + start);
    }
  }

  /**
   * Whether {@code instant} lies in this window: {@code start <= instant < end}, or {@code instant
   * == start} for a zero-length window.
   */
  public boolean contains(Instant instant) {
    if (start.equals(end)) {
      return start.equals(instant);
    }
    return !instant.isBefore(start) && instant.isBefore(end);
  }

  /** The window's length; zero for a one-instant window. */
  public Duration length() {
    return Duration.between(start, end);
  }
}
