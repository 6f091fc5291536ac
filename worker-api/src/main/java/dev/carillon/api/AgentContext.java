package dev.carillon.api;

import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Optional;

/**
 * What one attempt of one instance knows about itself, and its line back to the worker. The worker
 * creates one context per attempt and passes it to {@link AgentTask#run}.
 *
 * <p><b>Threads.</b> The accessors return fixed values and may be called from any thread. {@link
 * #heartbeat}, {@link #isCancelled} and {@link #checkCancelled} are thread-safe and never block on
 * IO, so helper threads started by the agent may call them too. {@link #checkpoint}, {@link
 * #lastCheckpoint} and {@link #once} are thread-safe too but do IO on the calling thread: each is
 * one or a few statements against the scheduler's database, bounded by the worker's database
 * timeouts.
 *
 * <p><b>Resuming.</b> An attempt that dies half-way (its worker is killed, its lease lost, its
 * deadline passed) is followed by another attempt of the same window when the retry policy allows
 * it. {@link #checkpoint} and {@link #lastCheckpoint} let that attempt continue where the last one
 * stopped instead of starting from nothing; {@link #once} keeps a side effect that an earlier
 * attempt completed from happening again. The plugin guide's section on resumable agents sums up
 * what each guarantees.
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
   * Saves this attempt's progress, so that a later attempt of the same window can resume from it
   * (see {@link #lastCheckpoint()}). Call it after a unit of work is done for good (an item
   * processed, a page fetched and stored), not in a tight loop: each call is one database statement
   * on the calling thread.
   *
   * <p><b>Guaranteed.</b> When the call returns, the state is stored with this attempt's number,
   * and a later attempt of this window receives it (or a later checkpoint of this attempt), also
   * after this worker dies with kill -9. Each attempt keeps its last checkpoint; the earlier
   * attempts' last checkpoints stay in the instance's history ({@code schedctl describe instance}).
   * The write is fenced by the attempt in the statement that makes it: it is stored only while the
   * instance is RUNNING at this attempt on this worker, so a run that lost its lease (a zombie: its
   * worker was paused or cut off and the window has a newer attempt) cannot overwrite a newer
   * attempt's checkpoint. A stored checkpoint also renews the lease, as the worker's heartbeat
   * does: it is proof of progress.
   *
   * <p><b>Refused.</b> When the write is refused (the run was cancelled, or this attempt no longer
   * holds the instance), nothing is stored, the worker stops the run as if its lease were lost, and
   * the call throws {@link RunCancelledException}. Let it propagate: another attempt owns the
   * window now, or will.
   *
   * @param stateJson the state, one JSON object as text, at most {@link Checkpoint#MAX_STATE_BYTES}
   *     bytes of UTF-8. Keep it small (counters, cursors, ids of finished items, references to
   *     larger state kept elsewhere); it replaces this attempt's previous checkpoint
   * @throws IllegalArgumentException if {@code stateJson} is not one JSON object or is larger than
   *     the limit; the message names the problem or the size. Nothing is stored
   * @throws RunCancelledException if the run was cancelled or the write was refused; nothing is
   *     stored and the run is stopped
   * @throws UncheckedIOException if the worker could not reach its database; the state may or may
   *     not be stored
   * @throws UnsupportedOperationException in a context that keeps no checkpoints (this interface's
   *     default); the worker's context and the test kit's {@code TestAgentContext} keep them
   */
  default void checkpoint(String stateJson) {
    throw new UnsupportedOperationException(
        getClass().getName() + " keeps no checkpoints; run the agent in a worker or a test kit");
  }

  /**
   * The last checkpoint an earlier attempt of this window saved: the one of the highest attempt
   * below {@link #attempt()} that saved any. Because checkpoints are fenced, that is also the most
   * recent one. Empty on a first attempt, when no earlier attempt saved a checkpoint, and after an
   * operator re-ran the instance from scratch ({@code schedctl rerun --from-scratch}); a plain
   * re-run keeps them.
   *
   * <p>It never returns this attempt's own checkpoints (the agent knows them). It is read on the
   * first call (one statement on the calling thread) and the same value is returned afterwards.
   *
   * @return the checkpoint to resume from, or empty to start from the beginning; this interface's
   *     default is always empty
   * @throws UncheckedIOException if the worker could not reach its database on the first call
   */
  default Optional<Checkpoint> lastCheckpoint() {
    return Optional.empty();
  }

  /**
   * Performs a side effect once per window: runs {@code effect} unless a call with the same {@code
   * key} for this window (by an earlier attempt or by this one) recorded it as done, and records it
   * as done, with its result, when it returns.
   *
   * <ol>
   *   <li>When {@code key} is recorded as done, returns the recorded result at once; {@code effect}
   *       is not called.
   *   <li>Otherwise it records that this attempt starts the effect, calls {@code effect} on this
   *       thread, records {@code key} as done with the returned result and returns the result.
   *   <li>When {@code effect} throws, nothing is recorded as done and the exception propagates
   *       unchanged; a later call (a retry) runs the effect again, told that it is {@linkplain
   *       EffectCall#inDoubt() in doubt}.
   * </ol>
   *
   * <p><b>Guaranteed.</b> Once the done record is written (before {@code once} returns), no attempt
   * of this window runs the effect again, whatever happens to this worker afterwards, unless an
   * operator re-runs the instance from scratch ({@code schedctl rerun --from-scratch}). Starting
   * and recording are fenced by the attempt like {@link #checkpoint}: a run that lost its lease
   * neither starts the effect nor records it. Calls with the same key from several threads of one
   * run wait for each other. Each fenced step also renews the lease.
   *
   * <p><b>The gap.</b> {@code once} cannot make the external call and its record one atomic step.
   * If the worker dies, or the run loses its lease, after the external system did the effect and
   * before the record is written, the next attempt calls the effect again, with {@link
   * EffectCall#inDoubt()} {@code true}. A run that lost its lease while its external call was in
   * flight (a zombie) may also complete that call while the next attempt makes it too. Pass {@link
   * EffectCall#idempotencyKey()} to the external system: one that deduplicates by key (most
   * payment, messaging and e-mail APIs accept an idempotency key or a client message id) turns the
   * second call into a no-op, which closes the gap. With a system that takes no key, check on
   * {@code inDoubt} whether the effect already happened before repeating it. A done record that
   * cannot reach the database is tried again, with short pauses, for as long as this attempt may
   * still hold its lease, so a database restart of a few seconds does not open the gap.
   *
   * <p>A run cancelled while {@code effect} was running (its deadline passed) still records the
   * effect as done if the instance is still at this attempt, then throws {@link
   * RunCancelledException}: the record is a fact about the world, and writing it spares the next
   * attempt the doubt.
   *
   * @param key what the effect does in this window; matches {@link Effect#KEY_PATTERN}
   * @param effect the effect; its result (at most {@link Effect#MAX_RESULT_BYTES} bytes of UTF-8,
   *     or {@code null}) is recorded and returned by later calls
   * @return the effect's result, from this call or as recorded by an earlier one; may be {@code
   *     null}
   * @throws IllegalArgumentException if {@code key} does not match {@link Effect#KEY_PATTERN} (the
   *     effect does not run), or the effect returned a result larger than {@link
   *     Effect#MAX_RESULT_BYTES}: the effect is then recorded as done without a result, so that it
   *     does not run again, and the message names the size
   * @throws RunCancelledException if the run was cancelled or this attempt no longer holds the
   *     instance: before the effect (it did not run), or after it (it ran; the record was refused,
   *     so the next attempt sees it in doubt). The run is stopped
   * @throws UncheckedIOException if the worker could not reach its database: before the effect (it
   *     did not run) or after it, for as long as the lease could last (it ran and may not be
   *     recorded: the next attempt sees it in doubt)
   * @throws UnsupportedOperationException in a context that records no effects (this interface's
   *     default); the worker's context and the test kit's {@code TestAgentContext} record them
   * @throws Exception whatever {@code effect} throws
   */
  default String once(String key, Effect effect) throws Exception {
    throw new UnsupportedOperationException(
        getClass().getName() + " records no effects; run the agent in a worker or a test kit");
  }

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
