package dev.carillon.model.tuning;

import dev.carillon.model.retry.RetryPolicy;
import java.util.Objects;

/**
 * The validated value of one config-topic record. The retry service applies it; {@code schedctl
 * config set} validates with the same code before it sends anything and sends the canonical JSON,
 * so the two can never disagree about what a record means. The JSON form is read and written by
 * {@code dev.carillon.spec.TuningJson}.
 */
public sealed interface TuningValue {
  /**
   * The largest record value accepted, in UTF-8 bytes. A retry policy or the rate limits are a few
   * hundred bytes; anything near this size is a mistake (a pasted file), refused before parsing.
   */
  int MAX_VALUE_BYTES = 64 * 1024;

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
}
