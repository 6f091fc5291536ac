package dev.carillon.model.tuning;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.task.Problem;
import dev.carillon.model.task.TaskDefinition;
import java.util.Objects;
import java.util.Optional;

/**
 * A key of the config topic ({@code carillon.config}): {@code retry/default}, {@code
 * retry/<task-id>} or {@code ratelimit/global}.
 *
 * <p>{@code retry/default} always means the default override, so a task whose id is {@code default}
 * cannot have an override of its own; its definition's policy still applies.
 *
 * @param kind which setting the key addresses
 * @param taskId the task for {@link Kind#RETRY_TASK}, empty otherwise
 */
public record TuningKey(Kind kind, Optional<String> taskId) {
  /** The prefix of retry policy keys. */
  public static final String RETRY_PREFIX = "retry/";

  /** The key of the retry policy override for tasks whose definition says NONE. */
  public static final String RETRY_DEFAULT = "retry/default";

  /** The key of the republishing rate limits. */
  public static final String RATE_LIMIT_GLOBAL = "ratelimit/global";

  /** What a key addresses. */
  public enum Kind {
    /** {@code retry/default}: the fallback retry policy. */
    RETRY_DEFAULT,
    /** {@code retry/<task-id>}: one task's retry policy. */
    RETRY_TASK,
    /** {@code ratelimit/global}: the republishing rate limits. */
    RATE_LIMIT
  }

  public TuningKey {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(taskId, "taskId");
    if ((kind == Kind.RETRY_TASK) != taskId.isPresent()) {
      throw new IllegalArgumentException("a task id belongs to RETRY_TASK keys only: " + kind);
    }
  }

  /** The default retry override key. */
  public static TuningKey retryDefault() {
    return new TuningKey(Kind.RETRY_DEFAULT, Optional.empty());
  }

  /** The override key of one task. */
  public static TuningKey retryTask(String taskId) {
    return parse(RETRY_PREFIX + taskId);
  }

  /** The rate limit key. */
  public static TuningKey rateLimit() {
    return new TuningKey(Kind.RATE_LIMIT, Optional.empty());
  }

  /**
   * Reads a record key.
   *
   * @throws InvalidValueException naming the field {@code key} and the value when the key is not
   *     one of the three forms or the task id is not a valid id
   */
  public static TuningKey parse(String key) {
    if (key == null || key.isBlank()) {
      throw new InvalidValueException(
          new Problem(
              "key", key, "is required: retry/default, retry/<task-id> or ratelimit/global"));
    }
    if (key.equals(RETRY_DEFAULT)) {
      return retryDefault();
    }
    if (key.equals(RATE_LIMIT_GLOBAL)) {
      return rateLimit();
    }
    if (key.startsWith(RETRY_PREFIX)) {
      String id = key.substring(RETRY_PREFIX.length());
      if (!TaskDefinition.ID_PATTERN.matcher(id).matches()) {
        throw new InvalidValueException(
            new Problem(
                "key",
                key,
                "the task id must match " + TaskDefinition.ID_PATTERN.pattern() + " after retry/"));
      }
      return new TuningKey(Kind.RETRY_TASK, Optional.of(id));
    }
    throw new InvalidValueException(
        new Problem("key", key, "must be retry/default, retry/<task-id> or ratelimit/global"));
  }

  /** The key as written on the topic. */
  @Override
  public String toString() {
    return switch (kind) {
      case RETRY_DEFAULT -> RETRY_DEFAULT;
      case RATE_LIMIT -> RATE_LIMIT_GLOBAL;
      case RETRY_TASK -> RETRY_PREFIX + taskId.orElseThrow();
    };
  }
}
