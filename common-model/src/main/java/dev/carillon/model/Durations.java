package dev.carillon.model;

import dev.carillon.model.task.Problem;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints durations the way users write them: ISO-8601 ({@code PT5M}) or a short form
 * ({@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 2d}, and sums such as {@code 1h30m}).
 */
public final class Durations {
  private static final Pattern SHORT = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private Durations() {}

  /** Parses {@code text}, or returns a problem naming {@code field} and the value. */
  public static Optional<Duration> tryParse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String t = text.trim();
    if (t.isEmpty()) {
      return Optional.empty();
    }
    if (t.toUpperCase(Locale.ROOT).startsWith("P")) {
      try {
        return Optional.of(Duration.parse(t.toUpperCase(Locale.ROOT)));
      } catch (DateTimeParseException e) {
        return Optional.empty();
      }
    }
    Matcher m = SHORT.matcher(t.toLowerCase(Locale.ROOT));
    Duration total = Duration.ZERO;
    int at = 0;
    while (m.find()) {
      if (m.start() != at) {
        return Optional.empty();
      }
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
      try {
        total =
            total.plus(
                switch (m.group(2)) {
                  case "ms" -> Duration.ofMillis(n);
                  case "s" -> Duration.ofSeconds(n);
                  case "m" -> Duration.ofMinutes(n);
                  case "h" -> Duration.ofHours(n);
                  default -> Duration.ofDays(n);
                });
      } catch (ArithmeticException e) {
        // "99999999999999999d" overflows Duration; Duration.parse reports the same as unparseable,
        // and a throw here would escape every caller that expects "empty" for bad text (the retry
        // service's config listener among them).
        return Optional.empty();
      }
      at = m.end();
    }
    return at == t.length() && at > 0 ? Optional.of(total) : Optional.empty();
  }

  /**
   * Parses {@code text} for {@code field}.
   *
   * @throws InvalidValueException naming the field and the value when the text is not a duration
   */
  public static Duration parse(String field, String text) {
    return tryParse(text)
        .orElseThrow(
            () ->
                new InvalidValueException(
                    new Problem(
                        field,
                        text,
                        "not a duration (use ISO-8601 like PT5M or 500ms, 30s, 5m, 1h, 2d)")));
  }

  /** The shortest short form that reads back to the same duration, e.g. {@code 1h30m}. */
  public static String format(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    if (d.isNegative()) {
      return d.toString();
    }
    StringBuilder sb = new StringBuilder();
    long days = d.toDays();
    if (days > 0) {
      sb.append(days).append('d');
    }
    if (d.toHoursPart() > 0) {
      sb.append(d.toHoursPart()).append('h');
    }
    if (d.toMinutesPart() > 0) {
      sb.append(d.toMinutesPart()).append('m');
    }
    if (d.toSecondsPart() > 0) {
      sb.append(d.toSecondsPart()).append('s');
    }
    if (d.toMillisPart() > 0) {
      sb.append(d.toMillisPart()).append("ms");
    }
    return sb.toString();
  }
}
