package dev.carillon.api;

/**
 * A side effect outside Carillon that must happen once per window: posting a message, sending an
 * e-mail, charging a card, opening a ticket. Run it through {@link AgentContext#once}, which skips
 * it when an earlier attempt of the window recorded it as done and returns that attempt's result
 * instead.
 *
 * <p>Pass {@link EffectCall#idempotencyKey()} to the system the effect calls whenever that system
 * accepts one (an {@code Idempotency-Key} header, a client message id, a unique request id): it is
 * what closes the one gap {@code once} cannot close alone, an effect that happened but whose record
 * was never written because the worker died in between (see {@link AgentContext#once}).
 */
@Stability.Evolving
@FunctionalInterface
public interface Effect {

  /**
   * The rule every effect key must match: {@value}. Keys name what the effect does in this window,
   * e.g. {@code post-digest} or {@code email:alice@example.com}.
   */
  String KEY_PATTERN = "[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}";

  /** The largest result an effect may return, in bytes of UTF-8: {@value}. */
  int MAX_RESULT_BYTES = 4096;

  /**
   * Performs the effect, on the thread that called {@link AgentContext#once}.
   *
   * @param call which effect this is, its idempotency key, and whether an earlier attempt may
   *     already have performed it
   * @return a small result to record with the effect (a message id, a receipt); {@code null} for
   *     none; at most {@link #MAX_RESULT_BYTES} bytes of UTF-8
   * @throws Exception any failure; nothing is recorded as done, and the exception reaches the
   *     caller of {@code once} unchanged
   */
  String perform(EffectCall call) throws Exception;
}
