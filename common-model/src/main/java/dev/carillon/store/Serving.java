package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static dev.carillon.store.jooq.Tables.WORKER_CAPABILITY;
import static dev.carillon.store.jooq.Tables.WORKER_PRESENCE;

import dev.carillon.model.worker.WorkerPresence;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * The SQL form of "some worker can run this task's instances", shared by the sweeps that publish
 * PENDING instances again and by the count of instances waiting for a worker. It mirrors the
 * workers' claim ({@link LeaseStore#claimForRun}): a task without a definition row is claimable by
 * any worker (which then fails the attempt, naming the missing definition), so it counts as served.
 */
final class Serving {
  private Serving() {}

  /**
   * True when the task {@code taskId} names has no definition, or a live, ready worker serves its
   * queue with its handler (presence refreshed within {@link WorkerPresence#EXPIRY}).
   */
  static Condition servable(Field<String> taskId) {
    var d = TASK_DEFINITION.as("srv_d");
    return DSL.notExists(DSL.selectOne().from(d).where(d.TASK_ID.eq(taskId))).or(served(taskId));
  }

  /** True when a live, ready worker serves the queue and handler of the task {@code taskId}. */
  static Condition served(Field<String> taskId) {
    var d = TASK_DEFINITION.as("srv_def");
    return DSL.exists(
        DSL.selectOne().from(d).where(d.TASK_ID.eq(taskId)).and(servedPair(d.QUEUE, d.HANDLER)));
  }

  /** True when a live, ready worker serves {@code queue} with {@code handler}. */
  static Condition servedPair(Field<String> queue, Field<String> handler) {
    var c = WORKER_CAPABILITY.as("srv_c");
    var w = WORKER_PRESENCE.as("srv_w");
    return DSL.exists(
        DSL.selectOne()
            .from(c)
            .join(w)
            .on(w.WORKER_ID.eq(c.WORKER_ID))
            .where(c.QUEUE.eq(queue))
            .and(c.HANDLER.eq(handler))
            .and(w.READY.isTrue())
            .and(w.LAST_SEEN.gt(Sql.ago(WorkerPresence.EXPIRY))));
  }
}
