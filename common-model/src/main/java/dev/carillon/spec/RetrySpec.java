package dev.carillon.spec;

import dev.carillon.model.Durations;
import dev.carillon.model.retry.DelayedRetry;
import dev.carillon.model.retry.ExponentialRetry;
import dev.carillon.model.retry.ImmediateRetry;
import dev.carillon.model.retry.NoRetry;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.retry.RetryRules;
import dev.carillon.model.retry.WindowRetry;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
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
 * A retry policy as a spec mapping, e.g. {@code {policy: DELAYED, delays: [5m, 15m, 30m],
 * maxRetries: 3}}: read (in a task spec, a store column, a config-topic value) and written.
 *
 * <p>Keys: {@code policy} (NONE, IMMEDIATE, DELAYED, EXPONENTIAL, WINDOW; any case), {@code
 * maxRetries} (0..100, default 3), {@code delays} (DELAYED), {@code initial}, {@code multiplier},
 * {@code cap}, {@code jitter} (EXPONENTIAL), {@code delay}, {@code grace} (WINDOW). A key that the
 * chosen policy does not use is a problem, not silently ignored. Durations are ISO-8601 ({@code
 * PT5M}) or short ({@code 5m}, {@code 1h30m}); a bare number is refused because its unit would be a
 * guess. Numbers may also be given as text ({@code "3"}, {@code "1.5"}).
 */
final class RetrySpec {
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

  private final String prefix;
  private final Node.Mapping spec;
  private final Problems problems;

  private RetrySpec(String field, Node.Mapping spec, Problems problems) {
    this.prefix = field + ".";
    this.spec = spec;
    this.problems = problems;
  }

  /**
   * Reads a policy; an empty mapping is {@link RetryPolicy#none()}.
   *
   * @param field the field the mapping is the value of, usually {@code retry}
   * @return the policy, or empty when {@code problems} gained at least one problem
   */
  static Optional<RetryPolicy> read(String field, Node.Mapping spec, Problems problems) {
    if (spec.entries().isEmpty()) {
      return Optional.of(RetryPolicy.none());
    }
    int before = problems.size();
    RetrySpec r = new RetrySpec(field, spec, problems);
    String kind = r.kind();
    problems.unknownKeys(
        spec,
        r.prefix,
        kind == null ? ALL_KEYS : KEYS.get(kind),
        kind == null
            ? Problems.unknownKey(ALL_KEYS)
            : key ->
                "not used by policy "
                    + kind
                    + " (allowed: "
                    + String.join(", ", new TreeSet<>(KEYS.get(kind)))
                    + ")");
    RetryPolicy policy = kind == null ? null : r.build(kind);
    return problems.size() == before ? Optional.ofNullable(policy) : Optional.empty();
  }

  /**
   * The mapping that {@link #read} reads back to an equal policy: keys in a fixed order, every
   * value written out (defaults included), durations in the short form.
   */
  static Map<String, Object> toSpec(RetryPolicy policy) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("policy", policy.kind());
    if (policy instanceof NoRetry) {
      return Collections.unmodifiableMap(spec);
    }
    spec.put("maxRetries", policy.maxRetries());
    if (policy instanceof DelayedRetry p) {
      spec.put("delays", p.delays().stream().map(Durations::format).toList());
    } else if (policy instanceof ExponentialRetry p) {
      spec.put("initial", Durations.format(p.initial()));
      spec.put("multiplier", p.multiplier());
      spec.put("cap", Durations.format(p.cap()));
      spec.put("jitter", p.jitter());
    } else if (policy instanceof WindowRetry p) {
      spec.put("delay", Durations.format(p.delay()));
      spec.put("grace", Durations.format(p.grace()));
    }
    return Collections.unmodifiableMap(spec);
  }

  private static Set<String> allKeys() {
    Set<String> all = new TreeSet<>();
    KEYS.values().forEach(all::addAll);
    return Set.copyOf(all);
  }

  private void problem(String key, Node at, Object value, String message) {
    problems.add(prefix + key, at == null ? spec : at, value, message);
  }

  private String kind() {
    Node raw = spec.get("policy");
    String expected = "one of " + String.join(", ", KINDS) + " (any case)";
    if (raw == null) {
      problem("policy", spec, null, "is required; " + expected);
      return null;
    }
    String kind =
        raw instanceof Node.Scalar s && s.value() instanceof String text
            ? text.trim().toUpperCase(Locale.ROOT)
            : null;
    if (kind == null || !KINDS.contains(kind)) {
      problem("policy", raw, raw.plain(), "must be " + expected);
      return null;
    }
    return kind;
  }

  private RetryPolicy build(String kind) {
    int before = problems.size();
    int maxRetries = integer("maxRetries", RetryPolicy.DEFAULT_MAX_RETRIES, RetryRules::maxRetries);
    RetryPolicy policy =
        switch (kind) {
          case NONE -> RetryPolicy.none();
          case IMMEDIATE -> problems.size() == before ? new ImmediateRetry(maxRetries) : null;
          case DELAYED -> {
            List<Duration> delays = delays();
            yield problems.size() == before ? new DelayedRetry(delays, maxRetries) : null;
          }
          case EXPONENTIAL -> {
            Duration initial =
                duration("initial", ExponentialRetry.DEFAULT_INITIAL, RetryRules::delay);
            double multiplier =
                decimal("multiplier", ExponentialRetry.DEFAULT_MULTIPLIER, RetryRules::multiplier);
            Duration cap = duration("cap", ExponentialRetry.DEFAULT_CAP, RetryRules::delay);
            double jitter = decimal("jitter", ExponentialRetry.DEFAULT_JITTER, RetryRules::jitter);
            if (initial != null && cap != null) {
              Node given = spec.get("cap");
              RetryRules.capAtLeastInitial(cap, initial)
                  .ifPresent(
                      m ->
                          problem(
                              "cap",
                              given,
                              given == null ? Durations.format(cap) : given.plain(),
                              m));
            }
            yield problems.size() == before
                ? new ExponentialRetry(initial, multiplier, cap, jitter, maxRetries)
                : null;
          }
          case WINDOW -> {
            Duration delay = duration("delay", WindowRetry.DEFAULT_DELAY, RetryRules::delay);
            Duration grace = duration("grace", Duration.ZERO, RetryRules::grace);
            yield problems.size() == before ? new WindowRetry(delay, grace, maxRetries) : null;
          }
          default -> throw new IllegalStateException("unhandled retry policy " + kind);
        };
    return policy;
  }

  private List<Duration> delays() {
    Node raw = spec.get("delays");
    if (!(raw instanceof Node.Sequence list) || list.items().isEmpty()) {
      problem(
          "delays",
          raw,
          raw == null ? null : raw.plain(),
          "must list at least one duration, e.g. [5m, 15m, 30m]");
      return List.of();
    }
    List<Duration> delays = new ArrayList<>(list.items().size());
    for (int i = 0; i < list.items().size(); i++) {
      delays.add(parseDuration("delays[" + i + "]", list.items().get(i), RetryRules::delay));
    }
    return delays;
  }

  private Duration duration(
      String key, Duration fallback, Function<Duration, Optional<String>> rule) {
    Node raw = spec.get(key);
    return raw == null ? fallback : parseDuration(key, raw, rule);
  }

  private Duration parseDuration(String key, Node raw, Function<Duration, Optional<String>> rule) {
    Object value = raw.plain();
    if (value instanceof Number) {
      problem(key, raw, value, "a number needs a unit, e.g. 5m or PT5M");
      return null;
    }
    if (!(value instanceof String text)) {
      problem(key, raw, value, "must be a duration such as 5m or PT5M");
      return null;
    }
    Optional<Duration> parsed = Durations.tryParse(text);
    if (parsed.isEmpty()) {
      problem(key, raw, value, "not a duration (use ISO-8601 like PT5M or 500ms, 30s, 5m, 1h, 2d)");
      return null;
    }
    Optional<String> broken = rule.apply(parsed.get());
    if (broken.isPresent()) {
      problem(key, raw, value, broken.get());
      return null;
    }
    return parsed.get();
  }

  private int integer(String key, int fallback, IntFunction<Optional<String>> rule) {
    Node raw = spec.get(key);
    if (raw == null) {
      return fallback;
    }
    Object value = raw.plain();
    BigDecimal n = number(value);
    if (n == null || n.stripTrailingZeros().scale() > 0) {
      problem(key, raw, value, "must be a whole number");
      return fallback;
    }
    // Clamped into int range first so that 10^20 is "out of range", not an overflow.
    int clamped =
        n.max(BigDecimal.valueOf(Integer.MIN_VALUE))
            .min(BigDecimal.valueOf(Integer.MAX_VALUE))
            .intValue();
    rule.apply(clamped).ifPresent(m -> problem(key, raw, value, m));
    return clamped;
  }

  private double decimal(String key, double fallback, DoubleFunction<Optional<String>> rule) {
    Node raw = spec.get(key);
    if (raw == null) {
      return fallback;
    }
    Object value = raw.plain();
    BigDecimal n = number(value);
    if (n == null) {
      problem(key, raw, value, "must be a number");
      return fallback;
    }
    double d = n.doubleValue();
    rule.apply(d).ifPresent(m -> problem(key, raw, value, m));
    return d;
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
