package dev.carillon.model.retry;

import dev.carillon.model.Durations;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.Problem;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.DoubleFunction;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * Reads retry policies from plain maps (YAML/JSON shape), e.g. {@code {policy: DELAYED, delays:
 * [5m, 15m, 30m], maxRetries: 3}}.
 *
 * <p>Keys: {@code policy} (NONE, IMMEDIATE, DELAYED, EXPONENTIAL, WINDOW; any case), {@code
 * maxRetries} (0..100, default 3), {@code delays} (DELAYED), {@code initial}, {@code multiplier},
 * {@code cap}, {@code jitter} (EXPONENTIAL), {@code delay}, {@code grace} (WINDOW). A key that the
 * chosen policy does not use is a problem, not silently ignored. Durations are ISO-8601 ({@code
 * PT5M}) or short ({@code 5m}, {@code 1h30m}); a bare number is refused because its unit would be a
 * guess. Numbers may also be given as text ({@code "3"}, {@code "1.5"}).
 */
public final class RetryPolicies {
  private static final String NONE = "NONE";
  private static final String IMMEDIATE = "IMMEDIATE";
  private static final String DELAYED = "DELAYED";
  private static final String EXPONENTIAL = "EXPONENTIAL";
  private static final String WINDOW = "WINDOW";
  private static final List<String> KINDS = List.of(NONE, IMMEDIATE, DELAYED, EXPONENTIAL, WINDOW);

  private static final Map<String, Set<String>> KEYS =
      Map.of(
          NONE, Set.of("policy"),
          IMMEDIATE, Set.of("policy", "maxRetries"),
          DELAYED, Set.of("policy", "maxRetries", "delays"),
          EXPONENTIAL, Set.of("policy", "maxRetries", "initial", "multiplier", "cap", "jitter"),
          WINDOW, Set.of("policy", "maxRetries", "delay", "grace"));
  private static final Set<String> ALL_KEYS = allKeys();

  private RetryPolicies() {}

  /**
   * Reads a policy from its spec. A {@code null} or empty spec is {@link RetryPolicy#none()}.
   *
   * @param taskId the task the spec belongs to, for the exception
   * @param field the field prefix for problems, usually {@code retry}
   * @throws InvalidTaskException listing every problem, each naming {@code field.<name>} (or {@code
   *     field.delays[i]}) and the value
   */
  public static RetryPolicy fromSpec(String taskId, String field, Map<String, ?> spec) {
    if (spec == null || spec.isEmpty()) {
      return RetryPolicy.none();
    }
    Reader r = new Reader(field, spec);
    String kind = r.kind();
    for (String key : new TreeSet<>(spec.keySet())) {
      Set<String> allowed = kind == null ? ALL_KEYS : KEYS.get(kind);
      if (!allowed.contains(key)) {
        r.problem(
            key,
            spec.get(key),
            kind == null
                ? "unknown key (known: " + String.join(", ", new TreeSet<>(ALL_KEYS)) + ")"
                : "not used by policy "
                    + kind
                    + " (allowed: "
                    + String.join(", ", new TreeSet<>(allowed))
                    + ")");
      }
    }
    RetryPolicy policy = kind == null ? null : r.build(kind);
    if (!r.problems.isEmpty()) {
      throw new InvalidTaskException(taskId, r.problems);
    }
    return policy;
  }

  private static Set<String> allKeys() {
    Set<String> all = new TreeSet<>();
    KEYS.values().forEach(all::addAll);
    return Set.copyOf(all);
  }

  /** Reads one spec, collecting every problem instead of stopping at the first. */
  private static final class Reader {
    private final String prefix;
    private final Map<String, ?> spec;
    private final List<Problem> problems = new ArrayList<>();

    Reader(String field, Map<String, ?> spec) {
      this.prefix = field == null || field.isEmpty() ? "" : field + ".";
      this.spec = spec;
    }

    void problem(String key, Object value, String message) {
      problems.add(new Problem(prefix + key, value, message));
    }

    String kind() {
      Object raw = spec.get("policy");
      String expected = "one of " + String.join(", ", KINDS) + " (any case)";
      if (raw == null) {
        problem("policy", null, "is required; " + expected);
        return null;
      }
      String kind = raw.toString().trim().toUpperCase(Locale.ROOT);
      if (!(raw instanceof String) || !KINDS.contains(kind)) {
        problem("policy", raw, "must be " + expected);
        return null;
      }
      return kind;
    }

    RetryPolicy build(String kind) {
      int maxRetries =
          integer("maxRetries", RetryPolicy.DEFAULT_MAX_RETRIES, RetryRules::maxRetries);
      return switch (kind) {
        case NONE -> RetryPolicy.none();
        case IMMEDIATE -> problems.isEmpty() ? new ImmediateRetry(maxRetries) : null;
        case DELAYED -> {
          List<Duration> delays = delays();
          yield problems.isEmpty() ? new DelayedRetry(delays, maxRetries) : null;
        }
        case EXPONENTIAL -> {
          Duration initial =
              duration("initial", ExponentialRetry.DEFAULT_INITIAL, RetryRules::delay);
          double multiplier =
              decimal("multiplier", ExponentialRetry.DEFAULT_MULTIPLIER, RetryRules::multiplier);
          Duration cap = duration("cap", ExponentialRetry.DEFAULT_CAP, RetryRules::delay);
          double jitter = decimal("jitter", ExponentialRetry.DEFAULT_JITTER, RetryRules::jitter);
          if (initial != null && cap != null) {
            RetryRules.capAtLeastInitial(cap, initial)
                .ifPresent(
                    m ->
                        problem(
                            "cap",
                            spec.containsKey("cap") ? spec.get("cap") : Durations.format(cap),
                            m));
          }
          yield problems.isEmpty()
              ? new ExponentialRetry(initial, multiplier, cap, jitter, maxRetries)
              : null;
        }
        case WINDOW -> {
          Duration delay = duration("delay", WindowRetry.DEFAULT_DELAY, RetryRules::delay);
          Duration grace = duration("grace", Duration.ZERO, RetryRules::grace);
          yield problems.isEmpty() ? new WindowRetry(delay, grace, maxRetries) : null;
        }
        default -> throw new IllegalStateException("unhandled retry policy " + kind);
      };
    }

    private List<Duration> delays() {
      Object raw = spec.get("delays");
      if (!(raw instanceof List<?> list) || list.isEmpty()) {
        problem("delays", raw, "must list at least one duration, e.g. [5m, 15m, 30m]");
        return List.of();
      }
      List<Duration> delays = new ArrayList<>(list.size());
      for (int i = 0; i < list.size(); i++) {
        delays.add(parseDuration("delays[" + i + "]", list.get(i), RetryRules::delay));
      }
      return delays;
    }

    private Duration duration(
        String key, Duration fallback, Function<Duration, Optional<String>> rule) {
      return spec.containsKey(key) ? parseDuration(key, spec.get(key), rule) : fallback;
    }

    private Duration parseDuration(
        String key, Object raw, Function<Duration, Optional<String>> rule) {
      Duration d;
      if (raw instanceof Duration given) {
        d = given;
      } else if (raw instanceof String text) {
        Optional<Duration> parsed = Durations.tryParse(text);
        if (parsed.isEmpty()) {
          problem(key, raw, "not a duration (use ISO-8601 like PT5M or 500ms, 30s, 5m, 1h, 2d)");
          return null;
        }
        d = parsed.get();
      } else if (raw instanceof Number) {
        problem(key, raw, "a number needs a unit, e.g. 5m or PT5M");
        return null;
      } else {
        problem(key, raw, "must be a duration such as 5m or PT5M");
        return null;
      }
      Optional<String> broken = rule.apply(d);
      if (broken.isPresent()) {
        problem(key, raw, broken.get());
        return null;
      }
      return d;
    }

    private int integer(String key, int fallback, IntFunction<Optional<String>> rule) {
      if (!spec.containsKey(key)) {
        return fallback;
      }
      Object raw = spec.get(key);
      BigDecimal n = number(raw);
      if (n == null || n.stripTrailingZeros().scale() > 0) {
        problem(key, raw, "must be a whole number");
        return fallback;
      }
      // Clamped into int range first so that 10^20 is "out of range", not an overflow.
      int value =
          n.max(BigDecimal.valueOf(Integer.MIN_VALUE))
              .min(BigDecimal.valueOf(Integer.MAX_VALUE))
              .intValue();
      rule.apply(value).ifPresent(m -> problem(key, raw, m));
      return value;
    }

    private double decimal(String key, double fallback, DoubleFunction<Optional<String>> rule) {
      if (!spec.containsKey(key)) {
        return fallback;
      }
      Object raw = spec.get(key);
      BigDecimal n = number(raw);
      if (n == null) {
        problem(key, raw, "must be a number");
        return fallback;
      }
      double value = n.doubleValue();
      rule.apply(value).ifPresent(m -> problem(key, raw, m));
      return value;
    }

    private static BigDecimal number(Object raw) {
      try {
        if (raw instanceof BigDecimal d) {
          return d;
        }
        if (raw instanceof BigInteger i) {
          return new BigDecimal(i);
        }
        if (raw instanceof Integer
            || raw instanceof Long
            || raw instanceof Short
            || raw instanceof Byte) {
          return BigDecimal.valueOf(((Number) raw).longValue());
        }
        if (raw instanceof Double || raw instanceof Float) {
          double d = ((Number) raw).doubleValue();
          return Double.isFinite(d) ? new BigDecimal(Double.toString(d)) : null;
        }
        if (raw instanceof String text) {
          return new BigDecimal(text.trim());
        }
      } catch (NumberFormatException e) {
        return null;
      }
      return null;
    }
  }
}
