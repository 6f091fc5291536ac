package dev.carillon.api;

import java.time.Instant;
import java.util.Optional;

/**
 * What one attempt of one instance knows about itself, and its line back to the worker. The worker
 * creates one context per attempt and passes it to {@link AgentTask#run}.
 *
 * <p><b>Threads.</b> The accessors return fixed values and may be called from any thread. {@link
 * #heartbeat}, {@link #isCancelled} and {@link #checkCancelled} are thread-safe and never block on
 * IO, so helper threads started by the agent may call them too.
 *
 * <p><b>Cancellation.</b> A run is cancelled when its {@link #deadline()} passes, when the worker
 * loses the instance's lease (another worker may already be running it), when an operator cancels
 * the instance, or when the worker shuts down. The worker then sets the cancelled flag and
 * interrupts the thread running {@link AgentTask#run}, so blocking calls that honour interrupts end
 * with {@link InterruptedException}. Cancellation is final: from that moment the worker writes
 * nothing for this attempt. Whatever {@code run} returns or throws afterwards is discarded, and the
 * instance's next state (TIMEOUT, released to PENDING, or whatever the new owner records) is
 * decided elsewhere. An agent therefore needs no clean-up beyond its own resources; it should stop
 * promptly and must not swallow the interrupt.
 *
 * <p><b>Times</b> are UTC instants taken from the scheduler's clocks (the database's for {@link
 * #scheduledAt()} and the worker's for {@link #startedAt()} and {@link #deadline()}).
 */
@Stability.Evolving
public interface AgentContext {

  /**
   * The task this instance belongs to.
   *
   * @return the task id, {@code [a-z0-9][a-z0-9._-]{0,63}}
   */
  String taskId();

  /**
   * The business window this instance runs for, e.g. {@code 2026-11-29}. Together with {@link
   * #taskId()} it identifies the instance: there is at most one instance per task and window, and
   * retries of the instance keep the same key.
   *
   * @return the window key, 1 to 64 characters
   */
  String windowKey();

  /**
   * The inclusive start of the business window; the data a daily report covers starts here.
   *
   * @return the window start (UTC)
   */
  Instant windowStart();

  /**
   * The exclusive end of the business window.
   *
   * @return the window end (UTC), not before {@link #windowStart()}
   */
  Instant windowEnd();

  /**
   * When the instance was due: the cron fire time, or when it was created for event, dependency,
   * manual and backfill instances. Stays the same across retries.
   *
   * @return the due instant (UTC)
   */
  Instant scheduledAt();

  /**
   * When the worker claimed this attempt and started it.
   *
   * @return the start of this attempt (UTC)
   */
  Instant startedAt();

  /**
   * The claim number of this instance, starting at 1 and increased by every claim (first run,
   * retries, and re-runs after a lost lease). It is the fencing token: the worker writes the result
   * only if the instance still carries this attempt number, so a stale run cannot overwrite a newer
   * one. Agents may pass it to external systems that support fencing.
   *
   * @return the attempt number, 1 or more
   */
  int attempt();

  /**
   * How many retries the retry policy has granted so far: 0 on the first run, 1 on the first retry.
   * Unlike {@link #attempt()} it does not count re-runs after a lost lease or a shutdown.
   *
   * @return retries consumed, 0 or more
   */
  int retryCount();

  /**
   * Why the previous attempt failed, as recorded (at most 512 characters); empty on the first run
   * or when the previous attempt was released rather than failed.
   *
   * @return the previous failure reason, or empty
   */
  Optional<String> previousFailureReason();

  /**
   * When this attempt is cancelled for taking too long: {@link #startedAt()} plus the task's
   * timeout. Agents that call slow tools can use it to set their own call timeouts.
   *
   * @return the deadline (UTC)
   */
  Instant deadline();

  /**
   * The task's parameters, exactly as defined on the task.
   *
   * @return a JSON object as text, {@code {}} when the task defines none; never {@code null}
   */
  String paramsJson();

  /**
   * A key that is the same for every attempt of this instance and different for every other
   * instance: {@code taskId() + "/" + windowKey()}, e.g. {@code daily-digest/2026-11-29}. Pass it
   * to external systems (message senders, payment APIs, object stores) so that a repeated run does
   * not repeat the side effect.
   *
   * @return the idempotency key
   */
  default String idempotencyKey() {
    return taskId() + "/" + windowKey();
  }

  /**
   * The W3C trace context of this run, e.g. {@code
   * 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01}: the run's span in the trace of this
   * instance (every attempt of an instance shares one trace). An agent that calls other services
   * passes it on as the {@code traceparent} header, so their spans join the run's trace; one that
   * logs can print its trace id to find the run's spans. The last field says whether the worker
   * records spans ({@code 01}) or not ({@code 00}); the ids are valid either way.
   *
   * <p>Agents run as processes get the same value in the {@code TRACEPARENT} environment variable.
   *
   * @return the {@code traceparent} header value, or empty when the context has none (contexts
   *     built by tests, workers older than this method)
   */
  @Stability.Evolving
  default Optional<String> traceparent() {
    return Optional.empty();
  }

  /**
   * Reports progress, e.g. {@code "summarised 40 of 120 articles"}. The latest report is shown to
   * operators and kept with the instance; it may be shortened to a few hundred characters.
   *
   * <p>Calling it is optional and is <em>not</em> what keeps the run alive: the worker renews the
   * lease on its own schedule for as long as {@code run} is executing, because an agent blocked in
   * a long model or tool call could not heartbeat in time. The call only records the text and
   * returns at once (it does no IO on the calling thread). After cancellation it is ignored.
   *
   * @param progress a short human-readable description; {@code null} clears it
   */
  void heartbeat(String progress);

  /**
   * Whether this run has been cancelled (see the class comment). Once {@code true}, it stays {@code
   * true}.
   *
   * @return {@code true} when the run should stop
   */
  boolean isCancelled();

  /**
   * Throws if this run has been cancelled; a convenient check between the steps of an agent.
   *
   * @throws RunCancelledException when {@link #isCancelled()} is {@code true}
   */
  default void checkCancelled() {
    if (isCancelled()) {
      throw new RunCancelledException(idempotencyKey(), attempt());
    }
  }
}
