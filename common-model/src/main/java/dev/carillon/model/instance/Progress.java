package dev.carillon.model.instance;

import java.time.Instant;
import java.util.Objects;

/**
 * A run's latest progress report, as kept with its instance: what the agent said it is doing and
 * when it said it.
 *
 * @param text at most {@value #MAX_CHARS} characters; empty when the agent cleared its progress
 * @param at when the agent reported it (the worker's clock)
 */
public record Progress(String text, Instant at) {
  /** The most characters of progress kept; the column's size. */
  public static final int MAX_CHARS = 512;

  /** Appended to a report that was cut, within {@link #MAX_CHARS}. */
  static final String CUT_MARK = "...";

  /**
   * @throws IllegalArgumentException when {@code text} is longer than {@value #MAX_CHARS}
   *     characters (use {@link #of})
   */
  public Progress {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(at, "at");
    if (text.length() > MAX_CHARS) {
      throw new IllegalArgumentException(
          "progress must be at most " + MAX_CHARS + " characters, was " + text.length());
    }
  }

  /**
   * A report of {@code text} made at {@code at}: cut to {@value #MAX_CHARS} characters (marked,
   * never inside a surrogate pair), {@code null} read as cleared (empty).
   */
  public static Progress of(String text, Instant at) {
    if (text == null) {
      return new Progress("", at);
    }
    if (text.length() <= MAX_CHARS) {
      return new Progress(text, at);
    }
    int end = MAX_CHARS - CUT_MARK.length();
    if (Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return new Progress(text.substring(0, end) + CUT_MARK, at);
  }

  /** Whether the agent cleared its progress. */
  public boolean cleared() {
    return text.isEmpty();
  }
}
