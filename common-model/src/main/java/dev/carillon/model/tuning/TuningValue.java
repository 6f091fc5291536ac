package dev.carillon.model.tuning;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.retry.RetryPolicies;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.task.InvalidTaskException;
import java.util.Objects;

/**
 * The validated value of one config-topic record. The retry service applies it; {@code schedctl
 * config set} validates with the same code before it sends anything.
 */
public sealed interface TuningValue {

  /** A retry policy override, for {@code retry/default} or {@code retry/<task-id>}. */
  record RetryOverride(RetryPolicy policy) implements TuningValue {
    public RetryOverride {
      Objects.requireNonNull(policy, "policy");
    }
  }

  /** New rate limits, for {@code ratelimit/global}. */
  record RateLimit(RateLimitSettings settings) implements TuningValue {
    public RateLimit {
      Objects.requireNonNull(settings, "settings");
    }
  }

  /**
   * Parses and validates a record.
   *
   * @param key the record key as written on the topic
   * @param json the record value; {@code null} is a tombstone and is not parsed here
   * @throws InvalidTuningException naming the key and every problem (field and value)
   */
  static TuningValue parse(String key, String json) {
    TuningKey k;
    try {
      k = TuningKey.parse(key);
    } catch (InvalidValueException e) {
      throw new InvalidTuningException(String.valueOf(key), java.util.List.of(e.problem()));
    }
    return parse(k, json);
  }

  /**
   * Parses and validates the value of a known key.
   *
   * @throws InvalidTuningException naming the key and every problem (field and value)
   */
  static TuningValue parse(TuningKey key, String json) {
    Objects.requireNonNull(key, "key");
    return switch (key.kind()) {
      case RETRY_DEFAULT, RETRY_TASK -> {
        try {
          yield new RetryOverride(
              RetryPolicies.fromJson(key.taskId().orElse(TuningKey.RETRY_DEFAULT), json));
        } catch (InvalidTaskException e) {
          throw new InvalidTuningException(key.toString(), e.problems());
        }
      }
      case RATE_LIMIT -> {
        RateLimitSettings.Result r = RateLimitSettings.read(json);
        yield new RateLimit(
            r.settings()
                .orElseThrow(() -> new InvalidTuningException(key.toString(), r.problems())));
      }
    };
  }
}
