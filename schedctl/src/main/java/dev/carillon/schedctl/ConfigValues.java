package dev.carillon.schedctl;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.carillon.model.retry.RetryPolicies;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.TaskDefinition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The keys and values of the {@code carillon.config} topic, checked before anything is sent, so
 * that an operator's typo is refused at the prompt instead of being logged and ignored by the retry
 * service.
 *
 * <ul>
 *   <li>{@code retry/default} and {@code retry/<task-id>}: a retry policy as JSON, read by {@link
 *       RetryPolicies#fromJson}, e.g. {@code {"policy":"DELAYED","delays":["5m","15m"]}}.
 *   <li>{@code ratelimit/global}: {@code {"perSecond": n, "burst": n, "perTaskPerSecond": n,
 *       "maxPerScan": n}}, every field required and more than 0; {@code burst} and {@code
 *       maxPerScan} whole numbers.
 * </ul>
 *
 * <p>Values are sent in a canonical form (keys in a fixed order, defaults written out), which is
 * exactly what was validated. This is the CLI's own validator, kept small and separate so it can be
 * swapped for the shared one in {@code dev.carillon.model.tuning} once that exists. Stateless.
 */
public final class ConfigValues {
  /** The fallback retry policy for tasks without their own override. */
  public static final String RETRY_DEFAULT = "retry/default";

  /** Prefix of the per-task retry overrides, {@code retry/<task-id>}. */
  public static final String RETRY_PREFIX = "retry/";

  /** The global rate limits of the retry service's scanners. */
  public static final String RATELIMIT_GLOBAL = "ratelimit/global";

  /** Largest value accepted; a handful of numbers or a retry spec is far smaller. */
  public static final int MAX_VALUE_BYTES = 64 * 1024;

  /** Upper bound for every rate-limit number: larger is a typo, not a plan. */
  public static final double MAX_RATE = 1_000_000;

  private static final List<String> RATE_KEYS =
      List.of("perSecond", "burst", "perTaskPerSecond", "maxPerScan");
  private static final Set<String> WHOLE = Set.of("burst", "maxPerScan");

  private static final ObjectMapper JSON =
      JsonMapper.builder()
          .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private ConfigValues() {}

  /**
   * A checked value.
   *
   * @param key the key as given
   * @param canonicalJson the value to send, or null when there are problems
   * @param problems one line per problem, each naming the key, the field and the value
   */
  public record Checked(String key, String canonicalJson, List<String> problems) {
    public Checked {
      problems = List.copyOf(problems);
    }

    public boolean valid() {
      return problems.isEmpty();
    }
  }

  /** Problems with the key alone (empty when it is one of the known keys). */
  public static List<String> checkKey(String key) {
    if (key == null || key.isBlank()) {
      return List.of("config key is required: " + knownKeys());
    }
    if (key.equals(RATELIMIT_GLOBAL) || key.equals(RETRY_DEFAULT)) {
      return List.of();
    }
    if (key.startsWith(RETRY_PREFIX)) {
      String task = key.substring(RETRY_PREFIX.length());
      if (!TaskDefinition.ID_PATTERN.matcher(task).matches()) {
        return List.of(
            "config key '"
                + key
                + "': task id '"
                + task
                + "' must match "
                + TaskDefinition.ID_PATTERN.pattern());
      }
      return List.of();
    }
    return List.of("unknown config key '" + key + "': " + knownKeys());
  }

  /** Checks {@code json} as the value of {@code key}. Never throws for bad input. */
  public static Checked check(String key, String json) {
    List<String> keyProblems = checkKey(key);
    if (!keyProblems.isEmpty()) {
      return new Checked(key, null, keyProblems);
    }
    if (json == null || json.isBlank()) {
      return new Checked(key, null, List.of(key + ": a JSON value is required"));
    }
    int bytes = json.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_VALUE_BYTES) {
      return new Checked(
          key,
          null,
          List.of(key + ": value is " + bytes + " bytes; at most " + MAX_VALUE_BYTES + " allowed"));
    }
    return key.equals(RATELIMIT_GLOBAL) ? checkRateLimit(key, json) : checkRetry(key, json);
  }

  private static Checked checkRetry(String key, String json) {
    String subject = key.substring(RETRY_PREFIX.length());
    try {
      RetryPolicy policy = RetryPolicies.fromJson(subject, json);
      return new Checked(key, RetryPolicies.toJson(policy), List.of());
    } catch (InvalidTaskException e) {
      return new Checked(key, null, e.problems().stream().map(p -> key + ": " + p).toList());
    } catch (ArithmeticException e) {
      // Durations.tryParse overflows on absurd values such as "99999999999999d".
      return new Checked(key, null, List.of(key + ": a duration is too large to represent"));
    }
  }

  private static Checked checkRateLimit(String key, String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      return new Checked(
          key, null, List.of(key + ": not JSON: " + e.getOriginalMessage().replace('\n', ' ')));
    }
    if (root == null || !root.isObject()) {
      return new Checked(
          key,
          null,
          List.of(
              key
                  + ": must be a JSON object like"
                  + " {\"perSecond\":50,\"burst\":100,\"perTaskPerSecond\":5,\"maxPerScan\":500}"));
    }
    List<String> problems = new ArrayList<>();
    Iterator<Map.Entry<String, JsonNode>> fields = root.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      if (!RATE_KEYS.contains(f.getKey())) {
        problems.add(
            key
                + ": "
                + f.getKey()
                + "="
                + f.getValue()
                + ": unknown key (known: "
                + String.join(", ", RATE_KEYS)
                + ")");
      }
    }
    ObjectNode canonical = JSON.createObjectNode();
    for (String field : RATE_KEYS) {
      JsonNode n = root.get(field);
      boolean whole = WHOLE.contains(field);
      String rule =
          whole
              ? "must be a whole number more than 0 and at most " + (long) MAX_RATE
              : "must be a number more than 0 and at most " + (long) MAX_RATE;
      if (n == null || n.isNull()) {
        problems.add(key + ": " + field + "=<missing>: is required; " + rule);
      } else if (!n.isNumber()
          || (whole && !n.isIntegralNumber())
          || !(n.asDouble() > 0)
          || n.asDouble() > MAX_RATE
          || Double.isNaN(n.asDouble())) {
        problems.add(key + ": " + field + "=" + n + ": " + rule);
      } else if (whole) {
        canonical.put(field, n.asLong());
      } else {
        canonical.put(field, n.asDouble());
      }
    }
    if (!problems.isEmpty()) {
      return new Checked(key, null, problems);
    }
    return new Checked(key, canonical.toString(), List.of());
  }

  private static String knownKeys() {
    return "use " + RETRY_DEFAULT + ", " + RETRY_PREFIX + "<task-id> or " + RATELIMIT_GLOBAL;
  }
}
