package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.jooq.DSLContext;

/** Read-only queries the worker needs besides those of {@link InstanceStore}. Thread-safe. */
public final class WorkerQueries {
  /**
   * Where an instance stood when a claim for it was lost.
   *
   * @param status the instance's status now
   * @param attempt its attempt now
   * @param workerId the worker of its current or last claim, or null
   */
  public record ClaimState(String status, int attempt, String workerId) {}

  private final DSLContext dsl;

  public WorkerQueries(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * The current state of the given instances, in one statement; ids without a row are absent. Used
   * only to explain lost claims in the log, so it reads without locking.
   */
  public Map<Long, ClaimState> claimStates(Collection<Long> ids) {
    Map<Long, ClaimState> out = new HashMap<>();
    if (ids.isEmpty()) {
      return out;
    }
    dsl.select(
            TASK_INSTANCE.ID, TASK_INSTANCE.STATUS, TASK_INSTANCE.ATTEMPT, TASK_INSTANCE.WORKER_ID)
        .from(TASK_INSTANCE)
        .join(InstanceStore.idTable(ids))
        .on(TASK_INSTANCE.ID.eq(InstanceStore.ID_COLUMN))
        .fetch()
        .forEach(r -> out.put(r.value1(), new ClaimState(r.value2(), r.value3(), r.value4())));
    return out;
  }
}
