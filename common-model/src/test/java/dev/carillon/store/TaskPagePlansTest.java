package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A page of one task's instances, newest scheduled first, reads about a page of rows however many
 * the task has (V22's {@code ix_task_instance_task_scheduled}): before it, every row of the task
 * was fetched and sorted, 3,000 heap pages a page at 30 days of history (docs/benchmarks.md, "A
 * month of history"). Under forced generic plans and the statistics of the empty tables, as in
 * {@link ScanPlansTest}.
 */
class TaskPagePlansTest {
  private static final int ROWS = 20_000;
  private static final int PAGE = 50;
  private static final String TASK = "page-plans";

  private static Database db;
  private static List<Instance> newestFirst;

  @BeforeAll
  static void open() {
    db = TestDatabase.genericPlans("task_page");
    new TaskStore(db.dsl())
        .applyAll(List.of(Tasks.daily(TASK).build(), Tasks.daily("other").build()));
    db.dsl().execute("ANALYZE task_instance");
    // One row in 50 is the task's, each a second after the one before, so that the task's rows
    // are spread through the table and through the time index, as a task's are among many tasks.
    Instant base = Instant.parse("2026-01-01T00:00:00Z");
    List<NewInstance> rows = new ArrayList<>(ROWS);
    for (int i = 0; i < ROWS; i++) {
      Instant at = base.plusSeconds(i);
      rows.add(
          NewInstance.pending(
              i % 50 == 0 ? TASK : "other",
              new Window("k" + i, at, at.plusSeconds(1)),
              at,
              Origin.MANUAL,
              Duration.ofMinutes(10),
              3));
    }
    List<Instance> created = new WindowStore(db.dsl()).create(rows, "test");
    newestFirst =
        created.stream()
            .filter(i -> i.taskId().equals(TASK))
            .sorted(
                Comparator.comparing(Instance::scheduledAt).thenComparing(Instance::id).reversed())
            .toList();
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void a_tasks_pages_read_a_page_of_rows_each_not_the_tasks_every_row() {
    TableReads.onOneSession(
        db,
        session -> {
          OperatorStore operator = new OperatorStore(session);
          InstanceFilter filter = new InstanceFilter(TASK, Set.of(), Set.of(), null, null);
          TableReads reads = TableReads.NONE;
          InstancePosition after = null;
          List<Instance> seen = new ArrayList<>();
          // Six pages, past the five runs after which a prepared statement may go generic.
          for (int page = 0; page < 6; page++) {
            TableReads before = TableReads.of(session, "task_instance");
            List<Instance> got = operator.page(filter, after, PAGE);
            reads = reads.plus(TableReads.of(session, "task_instance").minus(before));
            assertThat(got).hasSize(PAGE);
            seen.addAll(got);
            Instance last = got.get(got.size() - 1);
            after = new InstancePosition(last.scheduledAt(), last.id());
          }
          assertThat(seen.stream().map(Instance::id))
              .as("newest scheduled first, ties by id, page after page")
              .containsExactlyElementsOf(
                  newestFirst.subList(0, 6 * PAGE).stream().map(Instance::id).toList());
          assertThat(reads.sequential()).as("rows read sequentially").isZero();
          assertThat(reads.index())
              .as("rows fetched for six pages of %d, of the task's %d", PAGE, ROWS / 50)
              .isLessThanOrEqualTo(6 * (PAGE + 1));
        });
  }
}
