package dev.carillon.model.tuning;

import dev.carillon.model.retry.NoRetry;
import dev.carillon.model.retry.RetryPolicy;
import java.util.Objects;
import java.util.Optional;

/**
 * The retry policy that decides one failed instance, where it came from, and the version stamped as
 * {@code policy_version} on the instance.
 *
 * <p>Precedence, first match wins:
 *
 * <ol>
 *   <li>the task's override {@code retry/<task-id>} (version = its record offset);
 *   <li>the task definition's own policy, unless it is NONE (version = the definition version);
 *   <li>the {@code retry/default} override (version = its record offset);
 *   <li>NONE: not retryable (version = the definition version).
 * </ol>
 *
 * <p>Why the default override sits below the definition: an owner who wrote a policy into the task
 * chose it for that task; the default is for tasks that said nothing. An operator who must change
 * one task's policy now uses {@code retry/<task-id>}. The two version spaces (offsets and
 * definition versions) are told apart by {@link #source()}, which goes into the event reason.
 *
 * @param policy the policy to apply
 * @param version the version to stamp on the instance
 * @param source where the policy came from
 */
public record EffectivePolicy(RetryPolicy policy, long version, Source source) {
  /** Where an effective policy came from. */
  public enum Source {
    TASK_OVERRIDE,
    DEFINITION,
    DEFAULT_OVERRIDE,
    NONE
  }

  public EffectivePolicy {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(source, "source");
  }

  /**
   * Applies the precedence above. Pure.
   *
   * @param taskOverride the {@code retry/<task-id>} override, if any
   * @param definitionPolicy the task definition's policy; empty when the definition cannot be read
   * @param definitionVersion the definition's version (0 when it cannot be read)
   * @param defaultOverride the {@code retry/default} override, if any
   */
  public static EffectivePolicy choose(
      Optional<Versioned<RetryPolicy>> taskOverride,
      Optional<RetryPolicy> definitionPolicy,
      long definitionVersion,
      Optional<Versioned<RetryPolicy>> defaultOverride) {
    if (taskOverride.isPresent()) {
      return new EffectivePolicy(
          taskOverride.get().value(), taskOverride.get().version(), Source.TASK_OVERRIDE);
    }
    if (definitionPolicy.isPresent() && !(definitionPolicy.get() instanceof NoRetry)) {
      return new EffectivePolicy(definitionPolicy.get(), definitionVersion, Source.DEFINITION);
    }
    if (defaultOverride.isPresent()) {
      return new EffectivePolicy(
          defaultOverride.get().value(), defaultOverride.get().version(), Source.DEFAULT_OVERRIDE);
    }
    return new EffectivePolicy(RetryPolicy.none(), definitionVersion, Source.NONE);
  }

  /** Plain words for the event log, e.g. {@code EXPONENTIAL from retry/digest@12}. */
  public String describe(String taskId) {
    return policy.kind()
        + switch (source) {
          case TASK_OVERRIDE -> " from " + TuningKey.RETRY_PREFIX + taskId + "@" + version;
          case DEFAULT_OVERRIDE -> " from " + TuningKey.RETRY_DEFAULT + "@" + version;
          case DEFINITION -> " from task definition v" + version;
          case NONE -> " (task definition v" + version + " is not retryable)";
        };
  }
}
