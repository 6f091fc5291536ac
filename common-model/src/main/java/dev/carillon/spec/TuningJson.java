package dev.carillon.spec;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.Problem;
import dev.carillon.model.tuning.InvalidTuningException;
import dev.carillon.model.tuning.RateLimitSettings;
import dev.carillon.model.tuning.TuningKey;
import dev.carillon.model.tuning.TuningValue;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Config-topic values ({@code carillon.config}) as JSON: a retry policy for {@code retry/default}
 * and {@code retry/<task-id>} (the shape of {@link RetryPolicyJson}), the rate limits for {@code
 * ratelimit/global}, e.g. {@code {"perSecond": 100, "burst": 100, "perTaskPerSecond": 10,
 * "maxPerScan": 500}} with every field required. Duplicate keys and text after the object are
 * refused. Thread-safe.
 */
public final class TuningJson {
  private static final Set<String> RATE_FIELDS =
      Set.of("perSecond", "burst", "perTaskPerSecond", "maxPerScan");
  private static final String RATE_EXAMPLE =
      "{\"perSecond\":100,\"burst\":100,\"perTaskPerSecond\":10,\"maxPerScan\":500}";

  private TuningJson() {}

  /**
   * Parses and validates a record.
   *
   * @param key the record key as written on the topic
   * @param json the record value; a {@code null} (tombstone) is refused here
   * @throws InvalidTuningException naming the key and every problem (field and value)
   */
  public static TuningValue parse(String key, String json) {
    TuningKey k;
    try {
      k = TuningKey.parse(key);
    } catch (InvalidValueException e) {
      throw new InvalidTuningException(String.valueOf(key), List.of(e.problem()));
    }
    return parse(k, json);
  }

  /**
   * Parses and validates the value of a known key.
   *
   * @throws InvalidTuningException naming the key and every problem (field and value)
   */
  public static TuningValue parse(TuningKey key, String json) {
    Objects.requireNonNull(key, "key");
    if (json != null) {
      int bytes = json.getBytes(StandardCharsets.UTF_8).length;
      if (bytes > TuningValue.MAX_VALUE_BYTES) {
        // The value itself is not repeated: 64 KiB in a log line or on a terminal helps nobody.
        throw new InvalidTuningException(
            key.toString(),
            List.of(
                new Problem(
                    "value",
                    bytes + " bytes",
                    "must be at most " + TuningValue.MAX_VALUE_BYTES + " bytes of UTF-8")));
      }
    }
    return switch (key.kind()) {
      case RETRY_DEFAULT, RETRY_TASK -> {
        try {
          yield new TuningValue.RetryOverride(
              RetryPolicyJson.fromJson(key.taskId().orElse(TuningKey.RETRY_DEFAULT), json));
        } catch (InvalidTaskException e) {
          throw new InvalidTuningException(key.toString(), e.problems());
        }
      }
      case RATE_LIMIT -> new TuningValue.RateLimit(rateLimits(key, json));
    };
  }

  /**
   * The canonical JSON form: keys in a fixed order, defaults written out, durations in the short
   * form. {@link #parse(TuningKey, String)} reads it back to an equal value.
   */
  public static String toJson(TuningValue value) {
    if (value instanceof TuningValue.RetryOverride r) {
      return RetryPolicyJson.toJson(r.policy());
    }
    return toJson(((TuningValue.RateLimit) value).settings());
  }

  /** The rate limits as the JSON object a {@code ratelimit/global} record holds. */
  public static String toJson(RateLimitSettings s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("perSecond", s.perSecond());
    m.put("burst", s.burst());
    m.put("perTaskPerSecond", s.perTaskPerSecond());
    m.put("maxPerScan", s.maxPerScan());
    return Json.write(m);
  }

  private static RateLimitSettings rateLimits(TuningKey key, String json) {
    NodeParser.Parsed parsed =
        json == null
            ? new NodeParser.Parsed(Optional.empty(), Optional.empty())
            : NodeParser.parse(json, Format.JSON);
    if (parsed.error().isPresent()) {
      throw new InvalidTuningException(
          key.toString(),
          List.of(new Problem("value", json, "not JSON: " + parsed.error().get().message())));
    }
    if (!(parsed.root().orElse(null) instanceof Node.Mapping root)) {
      throw new InvalidTuningException(
          key.toString(),
          List.of(new Problem("value", json, "must be a JSON object like " + RATE_EXAMPLE)));
    }
    Problems problems = new Problems();
    problems.unknownKeys(
        root, "", RATE_FIELDS, name -> "unknown field (known: " + new TreeSet<>(RATE_FIELDS) + ")");
    double perSecond = rate(problems, root, "perSecond");
    int burst = count(problems, root, "burst");
    double perTask = rate(problems, root, "perTaskPerSecond");
    int maxPerScan = count(problems, root, "maxPerScan");
    if (!problems.isEmpty()) {
      throw new InvalidTuningException(key.toString(), problems.problems());
    }
    return new RateLimitSettings(perSecond, burst, perTask, maxPerScan);
  }

  // The range is checked here, on the JSON value, so that a problem shows the value as the
  // operator wrote it ("0", not "0.0"; "\"5\"" for a string).
  private static double rate(Problems problems, Node.Mapping root, String field) {
    Node n = root.get(field);
    String rule = RateLimitSettings.RATE_RULE;
    if (n == null) {
      problems.add(field, root, null, "is required; " + rule);
      return 0;
    }
    if (!(n.plain() instanceof Number number)) {
      problems.add(field, n, Json.of(n), rule);
      return 0;
    }
    Optional<String> broken = RateLimitSettings.rateProblem(number.doubleValue());
    broken.ifPresent(m -> problems.add(field, n, Json.of(n), m));
    return number.doubleValue();
  }

  private static int count(Problems problems, Node.Mapping root, String field) {
    Node n = root.get(field);
    String rule = RateLimitSettings.COUNT_RULE;
    if (n == null) {
      problems.add(field, root, null, "is required; " + rule);
      return 0;
    }
    Object v = n.plain();
    boolean whole = v instanceof Integer || v instanceof Long || v instanceof BigInteger;
    if (!whole
        || ((Number) v).doubleValue() > Integer.MAX_VALUE
        || RateLimitSettings.countProblem(((Number) v).longValue()).isPresent()) {
      problems.add(field, n, Json.of(n), rule);
      return 0;
    }
    return ((Number) v).intValue();
  }
}
