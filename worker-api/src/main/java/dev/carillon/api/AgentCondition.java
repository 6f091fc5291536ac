package dev.carillon.api;

/**
 * A predicate a condition-triggered task waits for, e.g. "at least 1,000 new rows since the window
 * opened". The trigger polls it at the task's declared interval within each window and creates the
 * window's one instance the first time it has held for the declared number of consecutive polls.
 *
 * <p><b>Discovery.</b> The trigger service finds implementations with {@link
 * java.util.ServiceLoader}: list the class in {@code
 * META-INF/services/dev.carillon.api.AgentCondition} of a jar on its class path. The class needs a
 * public no-argument constructor; {@link #type()} must match {@link AgentTask#TYPE_PATTERN} and be
 * unique.
 *
 * <p><b>Threads and time.</b> One instance per type is kept for the service's life and called from
 * one thread at a time per task; keep state in the source being observed, not in fields. A test
 * should answer quickly (seconds at most): it runs on the trigger leader's poll loop.
 */
@Stability.Evolving
public interface AgentCondition {
  /**
   * The name task definitions use in {@code condition.type}.
   *
   * @return the type, never {@code null}
   */
  String type();

  /**
   * Whether the condition holds now. Throwing counts as "does not hold" and is recorded with its
   * message.
   *
   * @param context the task, its current window, the poll instant and the condition's parameters
   * @return {@code true} when it holds
   * @throws Exception when the source cannot be read
   */
  boolean test(ConditionContext context) throws Exception;
}
