package dev.carillon.api;

import java.util.Objects;

/**
 * What an {@link Effect} is told when {@link AgentContext#once} runs it.
 *
 * @param key the effect's key within the window, as passed to {@code once}
 * @param idempotencyKey {@code taskId/windowKey/key}: the same for every attempt of this window and
 *     different for every other window or key; pass it to the system the effect calls
 * @param inDoubt {@code true} when an earlier call with this key (an earlier attempt, or an earlier
 *     call of this attempt that threw) started the effect and no call recorded it as done: it may
 *     or may not have happened. An effect whose target accepts the idempotency key can simply send
 *     it again; one whose target does not should first check whether the effect already happened
 *     (the seed's rule for non-idempotent work: check what was already sent before a retry)
 */
@Stability.Evolving
public record EffectCall(String key, String idempotencyKey, boolean inDoubt) {

  /**
   * Checks the values.
   *
   * @throws NullPointerException if {@code key} or {@code idempotencyKey} is {@code null}
   */
  public EffectCall {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(idempotencyKey, "idempotencyKey");
  }
}
