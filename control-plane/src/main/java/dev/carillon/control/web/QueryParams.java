package dev.carillon.control.web;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.schedule.TimeInput;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A request's query parameters, read with their rules: a value that breaks one is refused with a
 * 400 naming the parameter and the value. A parameter given twice is refused too (which one would
 * win is nobody's guess).
 */
public final class QueryParams {
  private final Map<String, List<String>> values;

  QueryParams(Map<String, List<String>> values) {
    this.values = Map.copyOf(values);
  }

  /** The names given. */
  Set<String> names() {
    return values.keySet();
  }

  /** The text of {@code name}, if given (blank counts as not given). */
  public Optional<String> string(String name) {
    List<String> v = values.get(name);
    if (v == null || v.isEmpty()) {
      return Optional.empty();
    }
    if (v.size() > 1) {
      throw ApiException.badRequest(name, String.join(",", v), "is given more than once");
    }
    String s = v.get(0).trim();
    return s.isEmpty() ? Optional.empty() : Optional.of(s);
  }

  /** A whole number in {@code [min, max]}, or {@code defaultValue} when not given. */
  public int integer(String name, int defaultValue, int min, int max) {
    Optional<String> s = string(name);
    if (s.isEmpty()) {
      return defaultValue;
    }
    int n;
    try {
      n = Integer.parseInt(s.get());
    } catch (NumberFormatException e) {
      throw ApiException.badRequest(name, s.get(), "must be a whole number");
    }
    if (n < min || n > max) {
      throw ApiException.badRequest(name, s.get(), "must be between " + min + " and " + max);
    }
    return n;
  }

  /** {@code true} or {@code false}, if given. */
  public Optional<Boolean> bool(String name) {
    return string(name)
        .map(
            s ->
                switch (s.toLowerCase(Locale.ROOT)) {
                  case "true" -> true;
                  case "false" -> false;
                  default -> throw ApiException.badRequest(name, s, "must be true or false");
                });
  }

  /** An instant ({@code 2026-03-29T08:00:00Z}), a local date-time or a date (both UTC). */
  public Optional<Instant> instant(String name) {
    return string(name)
        .map(
            s -> {
              try {
                return TimeInput.parse(name, s, ZoneOffset.UTC, null);
              } catch (InvalidValueException e) {
                throw ApiException.badRequest(name, s, e.problem().message());
              }
            });
  }

  /** Comma-separated names of {@code type}'s constants (any case); empty when not given. */
  public <E extends Enum<E>> Set<E> enums(String name, Class<E> type) {
    Optional<String> s = string(name);
    if (s.isEmpty()) {
      return Set.of();
    }
    Set<E> out = EnumSet.noneOf(type);
    for (String part : s.get().split(",")) {
      String p = part.trim().toUpperCase(Locale.ROOT);
      try {
        out.add(Enum.valueOf(type, p));
      } catch (IllegalArgumentException e) {
        throw ApiException.badRequest(
            name, part.trim(), "must be one of " + EnumSet.allOf(type) + " (comma-separated)");
      }
    }
    return out;
  }
}
