package dev.carillon.spec;

import dev.carillon.model.Durations;
import java.time.Duration;
import java.util.Optional;

/** Reads single values out of a mapping, reporting each value that cannot be read. */
final class Values {
  private Values() {}

  /**
   * One field as read: its value (null when absent), or broken when a problem was reported for it,
   * so that no rule is checked on it again.
   */
  record Read<T>(T value, boolean broken) {
    static <T> Read<T> of(T value) {
      return new Read<>(value, false);
    }

    static <T> Read<T> failed() {
      return new Read<>(null, true);
    }

    boolean present() {
      return !broken && value != null;
    }
  }

  /** A scalar as text ({@code 300} for a number), null when absent. */
  static Read<String> text(Node.Mapping m, String key, String field, Problems p) {
    Node n = m.get(key);
    if (n == null) {
      return Read.of(null);
    }
    if (!(n instanceof Node.Scalar s)) {
      p.add(field, n, n.plain(), "must be a single value, not " + n.describe());
      return Read.failed();
    }
    return Read.of(s.text());
  }

  /** Like {@link #text}, trimmed, and null when blank. */
  static Read<String> trimmed(Node.Mapping m, String key, String field, Problems p) {
    Read<String> r = text(m, key, field, p);
    if (r.value() == null) {
      return r;
    }
    String t = r.value().trim();
    return Read.of(t.isEmpty() ? null : t);
  }

  /**
   * A duration, ISO-8601 ({@code PT5M}) or short ({@code 5m}, {@code 1h30m}); a bare number is
   * refused because its unit would be a guess.
   */
  static Read<Duration> duration(Node.Mapping m, String key, String field, Problems p) {
    Node n = m.get(key);
    if (n == null) {
      return Read.of(null);
    }
    if (!(n instanceof Node.Scalar s)) {
      p.add(field, n, n.plain(), "must be a duration such as 5m, 1h or PT5M");
      return Read.failed();
    }
    if (s.value() instanceof Number) {
      p.add(field, n, s.text(), "a number needs a unit, e.g. 5m, 1h or PT5M");
      return Read.failed();
    }
    Optional<Duration> d = Durations.tryParse(s.text());
    if (d.isEmpty()) {
      p.add(
          field, n, s.text(), "not a duration (use ISO-8601 like PT5M or 500ms, 30s, 5m, 1h, 2d)");
      return Read.failed();
    }
    return Read.of(d.get());
  }

  /** Adds the problem a rule found, if any, at {@code at} showing {@code value}. */
  static boolean check(Problems p, String field, Node at, Object value, Optional<String> broken) {
    broken.ifPresent(m -> p.add(field, at, value, m));
    return broken.isEmpty();
  }
}
