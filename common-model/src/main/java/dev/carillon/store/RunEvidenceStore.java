package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.lease.TimeoutAdvice;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Record2;

/**
 * The evidence of how long a task's runs take: the durations ({@code finished_at - started_at}) of
 * its most recent successful runs, read through {@code ix_task_instance_ended} (V21). Failed and
 * timed out runs are left out: a failure ends early, and a timeout only says the run was stopped at
 * the limit, not how long it would have taken.
 *
 * <p>Thread-safe; each method is one statement.
 */
public final class RunEvidenceStore {
  /** How many recent successes make the evidence unless told otherwise. */
  public static final int DEFAULT_WINDOW = 1000;

  private final DSLContext dsl;

  public RunEvidenceStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * The durations of the task's latest {@code window} successful runs, newest first.
   *
   * @param window how many, 1 or more
   */
  public List<Duration> recentSuccesses(String taskId, int window) {
    if (window < 1) {
      throw new IllegalArgumentException("window must be at least 1, was " + window);
    }
    List<Duration> out = new ArrayList<>();
    for (Record2<Instant, Instant> r :
        dsl.select(TASK_INSTANCE.STARTED_AT, TASK_INSTANCE.FINISHED_AT)
            .from(TASK_INSTANCE)
            .where(TASK_INSTANCE.TASK_ID.eq(taskId))
            .and(Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.SUCCESS))
            .and(TASK_INSTANCE.FINISHED_AT.isNotNull())
            .and(TASK_INSTANCE.STARTED_AT.isNotNull())
            .orderBy(TASK_INSTANCE.FINISHED_AT.desc())
            .limit(window)
            .fetch()) {
      Duration d = Duration.between(r.value1(), r.value2());
      out.add(d.isNegative() ? Duration.ZERO : d);
    }
    return out;
  }

  /** The advice from the latest {@code window} successes, or empty without enough of them. */
  public Optional<TimeoutAdvice> advice(String taskId, int window) {
    return TimeoutAdvice.from(recentSuccesses(taskId, window));
  }
}
