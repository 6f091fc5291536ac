package dev.carillon.model.tuning;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.carillon.model.InvalidValueException;
import dev.carillon.model.task.Problem;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * How fast the retry service may republish instances, so that recovery after an outage never floods
 * the workers or the agents' providers.
 *
 * <p>JSON form (the value of {@code ratelimit/global}), every field required so an override never
 * depends on a default the operator cannot see: {@code {"perSecond": 100, "burst": 100,
 * "perTaskPerSecond": 10, "maxPerScan": 500}}.
 *
 * @param perSecond the global refill rate of the token bucket, in messages per second, (0, {@value
 *     #MAX_RATE}]
 * @param burst the global bucket's capacity: how many may go out at once after a quiet spell,
 *     1..{@value #MAX_COUNT}
 * @param perTaskPerSecond the refill rate of each task's own bucket (capacity {@code max(1,
 *     ceil(perTaskPerSecond))}), (0, {@value #MAX_RATE}]
 * @param maxPerScan the most one scan pass republishes, whatever the buckets hold, 1..{@value
 *     #MAX_COUNT}
 */
public record RateLimitSettings(
    double perSecond, int burst, double perTaskPerSecond, int maxPerScan) {
  /** Largest accepted rate. */
  public static final double MAX_RATE = 100_000.0;

  /** Largest accepted burst and per-scan maximum. */
  public static final int MAX_COUNT = 1_000_000;

  /** The built-in limits: 100/s globally (burst 100), 10/s per task, 500 per scan. */
  public static final RateLimitSettings DEFAULTS = new RateLimitSettings(100.0, 100, 10.0, 500);

  private static final Set<String> FIELDS =
      Set.of("perSecond", "burst", "perTaskPerSecond", "maxPerScan");
  // Duplicate keys and trailing text are refused: {"perSecond":1} {"perSecond":1000} must not
  // mean whichever half a reader happens to keep.
  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();
  private static final String EXAMPLE =
      "{\"perSecond\":100,\"burst\":100,\"perTaskPerSecond\":10,\"maxPerScan\":500}";

  public RateLimitSettings {
    List<Problem> problems = new ArrayList<>();
    rate(problems, "perSecond", perSecond);
    count(problems, "burst", burst);
    rate(problems, "perTaskPerSecond", perTaskPerSecond);
    count(problems, "maxPerScan", maxPerScan);
    if (!problems.isEmpty()) {
      throw new InvalidValueException(problems.get(0));
    }
  }

  /** The capacity of each task's bucket: one second's worth, at least one. */
  public int perTaskBurst() {
    return (int) Math.max(1, Math.ceil(perTaskPerSecond));
  }

  /** The JSON form, fields in a fixed order. */
  public String toJson() {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("perSecond", perSecond);
    m.put("burst", burst);
    m.put("perTaskPerSecond", perTaskPerSecond);
    m.put("maxPerScan", maxPerScan);
    try {
      return JSON.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + this, e);
    }
  }

  /**
   * Reads the JSON form, collecting every problem.
   *
   * @return the settings, or the problems (each naming the field and the value)
   */
  static Result read(String json) {
    List<Problem> problems = new ArrayList<>();
    JsonNode root;
    try {
      root = json == null ? null : JSON.readTree(json);
    } catch (JsonProcessingException e) {
      return Result.failed(
          new Problem("value", json, "not JSON: " + e.getOriginalMessage().replace('\n', ' ')));
    }
    if (root == null || !root.isObject()) {
      return Result.failed(new Problem("value", json, "must be a JSON object like " + EXAMPLE));
    }
    for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!FIELDS.contains(name)) {
        problems.add(
            new Problem(
                name, root.get(name), "unknown field (known: " + new TreeSet<>(FIELDS) + ")"));
      }
    }
    double perSecond = decimal(problems, root, "perSecond");
    int burst = whole(problems, root, "burst");
    double perTask = decimal(problems, root, "perTaskPerSecond");
    int maxPerScan = whole(problems, root, "maxPerScan");
    return problems.isEmpty()
        ? new Result(
            Optional.of(new RateLimitSettings(perSecond, burst, perTask, maxPerScan)), problems)
        : new Result(Optional.empty(), problems);
  }

  record Result(Optional<RateLimitSettings> settings, List<Problem> problems) {
    static Result failed(Problem p) {
      return new Result(Optional.empty(), List.of(p));
    }
  }

  // The range is checked here, on the JSON text, so that a problem shows the value as the operator
  // wrote it ("0", not "0.0").
  private static double decimal(List<Problem> problems, JsonNode root, String field) {
    JsonNode n = root.get(field);
    if (n == null || n.isNull()) {
      problems.add(new Problem(field, null, "is required; " + RATE_RULE));
      return 0;
    }
    if (!n.isNumber() || !inRate(n.doubleValue())) {
      problems.add(new Problem(field, n.toString(), RATE_RULE));
      return 0;
    }
    return n.doubleValue();
  }

  private static int whole(List<Problem> problems, JsonNode root, String field) {
    JsonNode n = root.get(field);
    if (n == null || n.isNull()) {
      problems.add(new Problem(field, null, "is required; " + COUNT_RULE));
      return 0;
    }
    if (!n.isIntegralNumber() || !n.canConvertToInt() || !inCount(n.intValue())) {
      problems.add(new Problem(field, n.toString(), COUNT_RULE));
      return 0;
    }
    return n.intValue();
  }

  private static final String RATE_RULE =
      "must be a number more than 0 and at most " + (long) MAX_RATE;
  private static final String COUNT_RULE = "must be a whole number between 1 and " + MAX_COUNT;

  private static boolean inRate(double value) {
    return value > 0.0 && value <= MAX_RATE;
  }

  private static boolean inCount(int value) {
    return value >= 1 && value <= MAX_COUNT;
  }

  private static void rate(List<Problem> problems, String field, double value) {
    if (!inRate(value)) {
      problems.add(new Problem(field, value, RATE_RULE));
    }
  }

  private static void count(List<Problem> problems, String field, int value) {
    if (!inCount(value)) {
      problems.add(new Problem(field, value, COUNT_RULE));
    }
  }
}
