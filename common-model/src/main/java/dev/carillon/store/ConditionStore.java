package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.CONDITION_STATE;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The debounce state of condition-triggered tasks ({@code condition_state}), so a new leader
 * neither loses nor double-counts consecutive true polls. Thread-safe; one statement per method.
 */
public final class ConditionStore {
  private final DSLContext dsl;

  public ConditionStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * One task's state.
   *
   * @param windowKey the window the count belongs to
   * @param lastSlot the poll slot evaluated last
   * @param consecutive consecutive true polls ending at {@code lastSlot}
   */
  public record State(String windowKey, Instant lastSlot, int consecutive) {
    public State {
      Objects.requireNonNull(windowKey, "windowKey");
      Objects.requireNonNull(lastSlot, "lastSlot");
    }
  }

  /** Every task's state, keyed by task id. */
  public Map<String, State> all() {
    Map<String, State> out = new HashMap<>();
    dsl.selectFrom(CONDITION_STATE)
        .fetch()
        .forEach(
            r ->
                out.put(
                    r.getTaskId(),
                    new State(r.getWindowKey(), r.getLastSlot(), r.getConsecutive())));
    return out;
  }

  /**
   * Stores {@code state} for {@code taskId}, while {@code fence} (the trigger leader's) is current.
   *
   * @throws FencedException when {@code fence} is no longer current; nothing was stored
   */
  public void save(String taskId, State state, Fence fence) {
    Objects.requireNonNull(fence, "fence");
    int written =
        dsl.insertInto(
                CONDITION_STATE,
                CONDITION_STATE.TASK_ID,
                CONDITION_STATE.WINDOW_KEY,
                CONDITION_STATE.LAST_SLOT,
                CONDITION_STATE.CONSECUTIVE)
            .select(
                DSL.select(
                        DSL.val(taskId, CONDITION_STATE.TASK_ID),
                        DSL.val(state.windowKey(), CONDITION_STATE.WINDOW_KEY),
                        DSL.val(state.lastSlot(), CONDITION_STATE.LAST_SLOT),
                        DSL.val(state.consecutive(), CONDITION_STATE.CONSECUTIVE))
                    .where(Fences.current(fence)))
            .onConflict(CONDITION_STATE.TASK_ID)
            .doUpdate()
            .set(CONDITION_STATE.WINDOW_KEY, state.windowKey())
            .set(CONDITION_STATE.LAST_SLOT, state.lastSlot())
            .set(CONDITION_STATE.CONSECUTIVE, state.consecutive())
            .set(CONDITION_STATE.UPDATED_AT, Sql.NOW)
            .execute();
    if (written == 0) {
      throw new FencedException(fence, "condition state of task " + taskId);
    }
  }
}
