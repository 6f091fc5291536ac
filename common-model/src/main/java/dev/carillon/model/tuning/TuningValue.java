package dev.carillon.model.tuning;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.retry.RetryPolicies;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.Problem;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * The validated value of one config-topic record. The retry service applies it; {@code schedctl
 * config set} validates with the same code before it sends anything and sends {@link #toJson()}, so
 * the two can never disagree about what a record means.
 */
public sealed interface TuningValue {
  /**
   * The largest record value accepted, in UTF-8 bytes. A retry policy or the rate limits are a few
   * hundred bytes; anything near this size is a mistake (a pasted file), refused before parsing.
   */
  int MAX_VALUE_BYTES = 64 * 1024;

  /**
   * The canonical JSON form: keys in a fixed order, defaults written out, durations in the short
   * form. {@link #parse(TuningKey, String)} reads it back to an equal value.
   */
  String toJson();

  /** A retry policy override, for {@code retry/default} or {@code retry/<task-id>}. */
  record RetryOverride(RetryPolicy policy) implements TuningValue {
    public RetryOverride {
      Objects.requireNonNull(policy, "policy");
    }

    @Override
    public String toJson() {
      return RetryPolicies.toJson(policy);
    }
  }

  /** New rate limits, for {@code ratelimit/global}. */
  record RateLimit(RateLimitSettings settings) implements TuningValue {
    public RateLimit {
      Objects.requireNonNull(settings, "settings");
    }

    @Override
    public String toJson() {
      return settings.toJson();
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
      throw new InvalidTuningException(String.valueOf(key), List.of(e.problem()));
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
    if (json != null) {
      int bytes = json.getBytes(StandardCharsets.UTF_8).length;
      if (bytes > MAX_VALUE_BYTES) {
        // The value itself is not repeated: 64 KiB in a log line or on a terminal helps nobody.
        throw new InvalidTuningException(
            key.toString(),
            List.of(
                new Problem(
                    "value",
                    bytes + " bytes",
                    "must be at most " + MAX_VALUE_BYTES + " bytes of UTF-8")));
      }
    }
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
