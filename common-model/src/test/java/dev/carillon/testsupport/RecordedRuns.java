package dev.carillon.testsupport;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.Instance;
import dev.carillon.store.AttemptEnd;
import dev.carillon.store.Database;
import dev.carillon.store.Lease;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.Outcome;
import dev.carillon.store.WindowStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Successful runs of known durations, recorded as the worker records them (created, claimed, ended
 * SUCCESS), then given the {@code started_at} and {@code finished_at} the durations say: the
 * evidence behind {@code suggest-timeout} and the worker's timeout warning.
 */
public final class RecordedRuns {
  private RecordedRuns() {}

  /**
   * Records one SUCCESS per duration for {@code taskId}, window keys {@code run-0001} ...; the n-th
   * finished n minutes after 2026-01-01T00:00Z.
   */
  public static void record(Database db, String taskId, List<Duration> durations) {
    WindowStore windows = new WindowStore(db.dsl());
    LeaseStore leases = new LeaseStore(db.dsl());
    List<dev.carillon.model.instance.NewInstance> rows = new ArrayList<>();
    for (int n = 1; n <= durations.size(); n++) {
      rows.add(Tasks.pendingKey(taskId, String.format("run-%04d", n), Duration.ofHours(1)));
    }
    List<Instance> created = windows.create(rows, "test");
    List<Long> ids = created.stream().map(Instance::id).toList();
    List<Instance> claimed = leases.claim(ids, "recorder");
    List<AttemptEnd> ends = new ArrayList<>();
    for (Instance i : claimed) {
      ends.add(new AttemptEnd(new Lease(i.id(), i.attempt()), Outcome.success("ok", false, null)));
    }
    leases.completeAll(ends, "recorder");
    Instant base = Instant.parse("2026-01-01T00:00:00Z");
    for (int n = 0; n < created.size(); n++) {
      Instant finished = base.plus(Duration.ofMinutes(n + 1));
      db.dsl()
          .update(TASK_INSTANCE)
          .set(TASK_INSTANCE.STARTED_AT, finished.minus(durations.get(n)))
          .set(TASK_INSTANCE.FINISHED_AT, finished)
          .where(TASK_INSTANCE.ID.eq(created.get(n).id()))
          .execute();
    }
  }

  /** {@code 1 s, 2 s, ... n s}. */
  public static List<Duration> seconds(int n) {
    List<Duration> out = new ArrayList<>(n);
    for (int i = 1; i <= n; i++) {
      out.add(Duration.ofSeconds(i));
    }
    return out;
  }
}
