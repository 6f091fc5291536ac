package dev.carillon.api;

/**
 * One kind of agent job: the code a worker runs for every instance of every task whose {@code
 * handler} equals {@link #type()}.
 *
 * <p><b>Discovery.</b> Workers find implementations with {@link java.util.ServiceLoader}: list the
 * class in {@code META-INF/services/dev.carillon.api.AgentTask} of a jar on the worker's class path
 * or in its plugin directory. The class needs a public no-argument constructor. A worker refuses to
 * start if two plugins report the same type or a type breaks {@link #TYPE_PATTERN}.
 *
 * <p><b>Lifecycle and threads.</b> A worker creates one instance per type and keeps it for its
 * whole life. It calls {@link #run} on a dedicated thread per run, and may run several instances of
 * the same type at once, so implementations must be thread-safe; keep per-run state in local
 * variables, not in fields.
 *
 * <p><b>Outcomes.</b> Returning a result marks the instance SUCCESS. Throwing marks it FAILED, and
 * the task's retry policy decides whether it runs again; throw {@link NonRetryableException} when
 * running again cannot help. After the run has been cancelled (see {@link
 * AgentContext#isCancelled()}) nothing the method returns or throws is recorded.
 */
@Stability.Stable
public interface AgentTask {

  /** The rule every {@link #type()} must match: {@value}. */
  String TYPE_PATTERN = "[a-z0-9][a-z0-9._-]{0,127}";

  /**
   * The handler name that task definitions refer to, e.g. {@code digest} or {@code reports.daily}.
   * Must match {@link #TYPE_PATTERN} and must not change between calls.
   *
   * @return the type, never {@code null}
   */
  String type();

  /**
   * Runs one attempt of one instance.
   *
   * <p>The attempt may take minutes. Call {@link AgentContext#checkCancelled()} between steps, or
   * {@link AgentContext#isCancelled()} in loops, and let {@link InterruptedException} and {@link
   * RunCancelledException} propagate: the worker interrupts this thread when the deadline passes,
   * the lease is lost or the worker shuts down. Use {@link AgentContext#idempotencyKey()} for every
   * side effect outside Carillon, because a run may be repeated (see the package overview).
   *
   * @param context this attempt's identity, timing, parameters and cancellation signal; valid only
   *     until this method returns
   * @return the result to record; must not be {@code null}
   * @throws NonRetryableException when the failure is permanent (bad parameters, a refusal that
   *     will not change); the instance goes to DEAD without retrying
   * @throws Exception any other failure; the task's retry policy decides what happens next
   */
  AgentResult run(AgentContext context) throws Exception;
}
