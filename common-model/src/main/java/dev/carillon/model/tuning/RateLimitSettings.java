package dev.carillon.model.tuning;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.task.Problem;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How fast the retry service may republish instances, so that recovery after an outage never floods
 * the workers or the agents' providers.
 *
 * <p>On the config topic (the value of {@code ratelimit/global}) every field is required, so an
 * override never depends on a default the operator cannot see: {@code {"perSecond": 100, "burst":
 * 100, "perTaskPerSecond": 10, "maxPerScan": 500}} (read and written by {@code
 * dev.carillon.spec.TuningJson}).
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

  /** The rule a rate breaks. */
  public static final String RATE_RULE =
      "must be a number more than 0 and at most " + (long) MAX_RATE;

  /** The rule a count breaks. */
  public static final String COUNT_RULE = "must be a whole number between 1 and " + MAX_COUNT;

  /** The built-in limits: 100/s globally (burst 100), 10/s per task, 500 per scan. */
  public static final RateLimitSettings DEFAULTS = new RateLimitSettings(100.0, 100, 10.0, 500);

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

  /**
   * What is wrong with {@code value} as a rate ({@code perSecond}, {@code perTaskPerSecond}), or
   * empty. Shared with the JSON reader, which shows the value as written.
   */
  public static Optional<String> rateProblem(double value) {
    return value > 0.0 && value <= MAX_RATE ? Optional.empty() : Optional.of(RATE_RULE);
  }

  /** What is wrong with {@code value} as a count ({@code burst}, {@code maxPerScan}), or empty. */
  public static Optional<String> countProblem(long value) {
    return value >= 1 && value <= MAX_COUNT ? Optional.empty() : Optional.of(COUNT_RULE);
  }

  private static void rate(List<Problem> problems, String field, double value) {
    rateProblem(value).ifPresent(m -> problems.add(new Problem(field, value, m)));
  }

  private static void count(List<Problem> problems, String field, int value) {
    countProblem(value).ifPresent(m -> problems.add(new Problem(field, value, m)));
  }
}
