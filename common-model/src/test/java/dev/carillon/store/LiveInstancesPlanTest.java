package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The trigger's check for live instances reads the partial index of live rows (V8): a task with
 * 20,000 finished instances and two live ones costs two rows, under forced generic plans and the
 * statistics of the empty table (as in {@link ScanPlansTest}).
 */
class LiveInstancesPlanTest {
  private static final int FINISHED = 20_000;
  private static final String TASK = "busy";

  private static Database db;
  private static List<Long> live;

  @BeforeAll
  static void open() {
    db = TestDatabase.genericPlans("live_plans");
    WindowStore windows = new WindowStore(db.dsl());
    new TaskStore(db.dsl()).applyAll(List.of(Tasks.daily(TASK).build()));
    db.dsl().execute("ANALYZE task_instance");
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    List<NewInstance> rows = new ArrayList<>(FINISHED);
    for (int i = 0; i < FINISHED; i++) {
      Instant at = start.plusSeconds(i);
      rows.add(
          NewInstance.skipped(
              TASK,
              new Window("s" + i, at, at.plusSeconds(1)),
              at,
              Origin.SCHEDULE,
              Duration.ofMinutes(1),
              "overlap"));
    }
    windows.create(rows, "test");
    live = new ArrayList<>();
    for (String key : List.of("live-1", "live-2")) {
      live.add(
          windows
              .create(List.of(Tasks.pendingKey(TASK, key, Duration.ofMinutes(1))), "test")
              .get(0)
              .id());
    }
    new LeaseStore(db.dsl()).claim(List.of(live.get(1)), "w");
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void the_live_instances_of_a_task_are_read_from_the_live_index_alone() {
    TableReads.onOneSession(
        db,
        session -> {
          TriggerQueries queries = new TriggerQueries(session);
          TableReads total = TableReads.NONE;
          // Six runs, past the five after which a prepared statement may go generic.
          for (int run = 0; run < 6; run++) {
            TableReads before = TableReads.of(session, "task_instance");
            assertThat(queries.liveInstances(List.of(TASK, "no-such-task")))
                .extracting(Instance::id, Instance::status)
                .containsExactly(
                    org.assertj.core.groups.Tuple.tuple(live.get(0), InstanceStatus.PENDING),
                    org.assertj.core.groups.Tuple.tuple(live.get(1), InstanceStatus.RUNNING));
            total = total.plus(TableReads.of(session, "task_instance").minus(before));
          }
          assertThat(total.sequential()).as("rows read sequentially").isZero();
          assertThat(total.index()).as("the two live rows, 6 times").isEqualTo(6 * 2);
        });
  }
}
