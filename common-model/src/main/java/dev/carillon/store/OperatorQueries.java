package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.time.Instant;
import java.util.Objects;
import org.jooq.DSLContext;

/**
 * The instance changes an operator makes by hand ({@code schedctl rerun}, {@code schedctl cancel}),
 * each one compare-and-set through {@link InstanceStore#casFrom}, fenced by the status and attempt
 * the operator was shown, so that a change that raced with a worker or the retry service is refused
 * rather than applied to a row the operator has not seen.
 *
 * <p>Thread-safe; every method runs in its own transaction.
 */
public final class OperatorQueries {
  private final InstanceStore instances;

  public OperatorQueries(DSLContext dsl) {
    this.instances = new InstanceStore(dsl);
  }

  /**
   * Brings a finished instance ({@link InstanceStatus#FINISHED}) back to PENDING for another run.
   * The origin and the attempt counter are kept (the attempt is the workers' fencing token and must
   * only grow); the retry budget, the non-retryable flag, the lease, the last result and the
   * dispatch stamp are cleared, so the new run is retried by the task's policy like a fresh one and
   * the stranded-PENDING scan republishes it if the caller cannot.
   *
   * @param seen the instance as the operator saw it; its status and attempt fence the change
   * @return {@code false} when the row changed meanwhile (nothing was written)
   * @throws dev.carillon.model.instance.IllegalTransitionException when {@code seen} is not
   *     finished
   */
  public boolean rerun(Instance seen, String actor, String reason) {
    Objects.requireNonNull(seen, "seen");
    return instances.casFrom(
        seen.id(),
        seen.status(),
        seen.attempt(),
        InstanceStatus.PENDING,
        actor,
        reason,
        u ->
            u.set(TASK_INSTANCE.RETRY_COUNT, 0)
                .set(TASK_INSTANCE.NON_RETRYABLE, false)
                .set(TASK_INSTANCE.NEXT_ATTEMPT_AT, (Instant) null)
                .set(TASK_INSTANCE.LEASE_UNTIL, (Instant) null)
                .set(TASK_INSTANCE.WORKER_ID, (String) null)
                .set(TASK_INSTANCE.DISPATCHED_AT, (Instant) null)
                .set(TASK_INSTANCE.STARTED_AT, (Instant) null)
                .set(TASK_INSTANCE.FINISHED_AT, (Instant) null)
                .set(TASK_INSTANCE.FAIL_REASON, (String) null)
                .set(TASK_INSTANCE.RESULT_SUMMARY, (String) null)
                .set(TASK_INSTANCE.RESULT_TRUNCATED, false)
                .set(TASK_INSTANCE.RESULT_URI, (String) null));
  }

  /**
   * Stops an instance that has not finished: {@code → CANCELLED}, lease and retry time cleared. A
   * RUNNING instance's worker notices on its next heartbeat (which then updates no row) and stops
   * the run.
   *
   * @param seen the instance as the operator saw it; its status and attempt fence the change
   * @return {@code false} when the row changed meanwhile (nothing was written)
   * @throws dev.carillon.model.instance.IllegalTransitionException when {@code seen} cannot be
   *     cancelled from its status
   */
  public boolean cancel(Instance seen, String actor, String reason) {
    Objects.requireNonNull(seen, "seen");
    return instances.casFrom(
        seen.id(),
        seen.status(),
        seen.attempt(),
        InstanceStatus.CANCELLED,
        actor,
        reason,
        u ->
            u.set(TASK_INSTANCE.LEASE_UNTIL, (Instant) null)
                .set(TASK_INSTANCE.NEXT_ATTEMPT_AT, (Instant) null));
  }
}
