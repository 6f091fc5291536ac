/**
 * The plugin API of Carillon: what an agent developer implements ({@link
 * dev.carillon.api.AgentTask}) and what the worker hands it ({@link dev.carillon.api.AgentContext},
 * {@link dev.carillon.api.AgentResult}, {@link dev.carillon.api.NonRetryableException}, {@link
 * dev.carillon.api.RunCancelledException}), and the values of resumable agents ({@link
 * dev.carillon.api.Checkpoint}, {@link dev.carillon.api.Effect}, {@link
 * dev.carillon.api.EffectCall}). This module has no dependencies; agents compile against it alone.
 * Each type carries a {@link dev.carillon.api.Stability} label.
 *
 * <h2>What the worker guarantees</h2>
 *
 * <ul>
 *   <li><b>One live run per claim.</b> A worker runs an instance only after claiming it, which
 *       raises the instance's {@linkplain dev.carillon.api.AgentContext#attempt() attempt} number.
 *       At most one run holds a given attempt's lease at a time.
 *   <li><b>Results are fenced.</b> The outcome of a run is written only if the instance still
 *       carries that run's attempt number. A run that lost its lease (because it stalled, or its
 *       worker was cut off) cannot overwrite the outcome of a newer attempt.
 *   <li><b>At-least-once execution.</b> When a worker loses a lease, crashes or shuts down mid-run,
 *       the instance runs again, possibly while the old run is still finishing somewhere. Agents
 *       must therefore make external side effects idempotent, using {@link
 *       dev.carillon.api.AgentContext#idempotencyKey()} ({@code taskId/windowKey}, the same for
 *       every attempt of an instance).
 *   <li><b>Cancellation is final.</b> On deadline, lease loss, operator cancel or shutdown the
 *       worker sets the cancelled flag and interrupts the run's thread; after that nothing from the
 *       run is recorded.
 *   <li><b>Progress survives attempts.</b> A {@linkplain dev.carillon.api.AgentContext#checkpoint
 *       checkpoint} is stored fenced by the attempt, and the next attempt of the window receives
 *       the last one ({@link dev.carillon.api.AgentContext#lastCheckpoint()}).
 *   <li><b>Effects once per window, up to one gap.</b> {@link dev.carillon.api.AgentContext#once}
 *       does not repeat an effect an earlier attempt recorded as done; an effect that happened but
 *       was not recorded (the worker died in between) runs again, in doubt, with the same
 *       {@linkplain dev.carillon.api.EffectCall#idempotencyKey() idempotency key}.
 *   <li><b>Retries are the task owner's choice.</b> A failed run is retried only if the task's
 *       retry policy allows it (the default is not to retry), never when the run threw {@link
 *       dev.carillon.api.NonRetryableException}.
 * </ul>
 *
 * <h2>Threads</h2>
 *
 * {@link dev.carillon.api.AgentTask#run} is called on a dedicated thread per run; one {@code
 * AgentTask} instance serves many concurrent runs and must be thread-safe. {@link
 * dev.carillon.api.AgentContext#heartbeat}, {@link dev.carillon.api.AgentContext#isCancelled} and
 * {@link dev.carillon.api.AgentContext#checkCancelled} may be called from any thread and never
 * block on IO; {@link dev.carillon.api.AgentContext#checkpoint}, {@link
 * dev.carillon.api.AgentContext#lastCheckpoint} and {@link dev.carillon.api.AgentContext#once} may
 * be called from any thread and do IO on it.
 *
 * <h2>Units</h2>
 *
 * All {@link java.time.Instant}s are UTC. Sizes are in bytes (UTF-8 for text). Parameters are a
 * JSON object passed as text, so agents choose their own JSON library.
 */
@dev.carillon.api.Stability.Stable
package dev.carillon.api;
