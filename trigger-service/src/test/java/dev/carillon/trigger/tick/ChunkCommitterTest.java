package dev.carillon.trigger.tick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.Decision;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import dev.carillon.trigger.plan.TickCounts;
import dev.carillon.trigger.plan.TickPlan;
import dev.carillon.trigger.tick.ChunkCommitter.Chunk;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jooq.exception.DataAccessException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DevStackExtension.class)
class ChunkCommitterTest {
  private static final String DAY = "2026-11-29";
  private static final TriggerCursor CURSOR =
      new TriggerCursor(Instant.parse("2026-11-29T08:00:00Z"), ZoneOffset.UTC);

  private Database db;
  private Fence fence;
  private TaskStore tasks;
  private OperatorStore instances;
  private WindowStore windows;

  @BeforeEach
  void openDatabase() {
    db = TestDatabase.fresh("chunk_commit");
    tasks = new TaskStore(db.dsl());
    instances = new OperatorStore(db.dsl());
    windows = new WindowStore(db.dsl());
    fence = new EpochStore(db.dsl()).begin("trigger", "test");
  }

  @AfterEach
  void closeDatabase() {
    db.close();
  }

  // ---------------------------------------------------------------- splitting (no database)

  @Test
  void a_plan_below_the_parallel_threshold_is_one_chunk() {
    TickPlan plan = plan(ids("t", 9), 1);
    assertThat(ChunkCommitter.split(plan, 2_000, 10, 2)).hasSize(1);
  }

  @Test
  void a_large_plan_is_cut_into_a_multiple_of_the_threads_and_every_task_stays_whole() {
    // 25 tasks, each with 2 rows and 1 decision: 75 rows plus decisions, at most 20 per chunk.
    TickPlan plan = plan(ids("t", 25), 2);
    List<Chunk> chunks = ChunkCommitter.split(plan, 20, 10, 2);

    assertThat(chunks.size() % 2).as("chunks per thread are equal").isZero();
    Set<String> seen = new HashSet<>();
    for (Chunk c : chunks) {
      Set<String> own = c.cursors().keySet();
      assertThat(c.rows()).allMatch(r -> own.contains(r.taskId()));
      assertThat(c.decisions()).allMatch(d -> own.contains(d.taskId()));
      assertThat(c.rows()).hasSize(2 * own.size());
      assertThat(seen).doesNotContainAnyElementsOf(own);
      seen.addAll(own);
    }
    assertThat(seen).containsExactlyInAnyOrderElementsOf(plan.cursors().keySet());
    assertThat(chunks)
        .allSatisfy(c -> assertThat(c.rows().size() + c.decisions().size()).isLessThan(20 + 3));
  }

  // ---------------------------------------------------------------- against PostgreSQL

  @Test
  void parallel_chunks_create_every_window_once_with_its_event_and_cursor() {
    List<String> ids = ids("par", 40);
    apply(ids);
    ChunkCommitter committer = new ChunkCommitter(windows, "trigger:a", 7, 1, 2);

    List<List<Instance>> handedOver = new CopyOnWriteArrayList<>();
    List<Instance> created = committer.commit(plan(ids, 1), fence, handedOver::add);

    assertThat(created).extracting(Instance::taskId).containsExactlyElementsOf(ids);
    assertThat(handedOver)
        .as("each chunk is handed over once, as it commits")
        .hasSize(ChunkCommitter.split(plan(ids, 1), 7, 1, 2).size());
    assertThat(handedOver.stream().flatMap(List::stream))
        .containsExactlyInAnyOrderElementsOf(created);
    assertThat(tasks.cursors()).containsAllEntriesOf(cursors(ids));
    for (String id : ids) {
      assertThat(instances.windowEvents(id, DAY))
          .extracting(InstanceEvent::kind)
          .as(id)
          .containsExactly(InstanceEvent.Kind.CREATED);
    }
  }

  @Test
  void two_leaders_committing_the_same_plan_at_once_create_each_window_once() throws Exception {
    List<String> ids = ids("race", 60);
    apply(ids);
    TickPlan plan = plan(ids, 1);
    ChunkCommitter a = new ChunkCommitter(windows, "trigger:a", 9, 1, 2);
    ChunkCommitter b = new ChunkCommitter(windows, "trigger:b", 13, 1, 2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Instance> created = new ArrayList<>();
    try {
      Future<List<Instance>> fa = pool.submit(() -> a.commit(plan, fence));
      Future<List<Instance>> fb = pool.submit(() -> b.commit(plan, fence));
      created.addAll(fa.get());
      created.addAll(fb.get());
    } finally {
      pool.shutdownNow();
    }

    assertThat(created).extracting(Instance::taskId).containsExactlyInAnyOrderElementsOf(ids);
    for (String id : ids) {
      assertThat(instances.windowEvents(id, DAY))
          .filteredOn(e -> e.kind() == InstanceEvent.Kind.CREATED)
          .as(id)
          .hasSize(1);
    }
  }

  @Test
  void a_failing_chunk_fails_the_commit_and_every_other_task_is_all_or_nothing() {
    List<String> ids = ids("fail", 30);
    apply(ids);
    // A task id longer than task_instance.task_id (64 characters): its chunk fails in the database
    // (value too long), a real failure.
    String ghost = "fail-0149-ghost-" + "x".repeat(64);
    List<String> withGhost = new ArrayList<>(ids);
    withGhost.add(ghost);
    ChunkCommitter committer = new ChunkCommitter(windows, "trigger:a", 4, 1, 2);

    List<Instance> handedOver = new CopyOnWriteArrayList<>();
    assertThatThrownBy(() -> committer.commit(plan(withGhost, 1), fence, handedOver::addAll))
        .isInstanceOf(DataAccessException.class);
    // Exactly the committed chunks were handed over (to be published).
    assertThat(handedOver)
        .extracting(Instance::taskId)
        .containsExactlyInAnyOrderElementsOf(
            ids.stream().filter(id -> instances.findByWindow(id, DAY).isPresent()).toList());

    Map<String, TriggerCursor> stored = tasks.cursors();
    for (String id : ids) {
      boolean hasRow = instances.findByWindow(id, DAY).isPresent();
      boolean hasEvent = !instances.windowEvents(id, DAY).isEmpty();
      boolean hasCursor = CURSOR.equals(stored.get(id));
      assertThat(List.of(hasEvent, hasCursor)).as(id).containsOnly(hasRow);
    }
    assertThat(stored).doesNotContainKey(ghost);
  }

  // ---------------------------------------------------------------- helpers

  private void apply(List<String> ids) {
    List<TaskDefinition> defs = new ArrayList<>();
    ids.forEach(id -> defs.add(Tasks.daily(id).build()));
    tasks.applyAll(defs);
  }

  private static List<String> ids(String prefix, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(String.format("%s-%04d", prefix, i));
    }
    return out;
  }

  private static Map<String, TriggerCursor> cursors(List<String> ids) {
    Map<String, TriggerCursor> out = new TreeMap<>();
    ids.forEach(id -> out.put(id, CURSOR));
    return out;
  }

  /**
   * Per task: {@code rowsPerTask} PENDING rows (the first for {@link #DAY}), and for more than one
   * row a decision too, as a catch-up tick with a paused neighbour might plan.
   */
  private static TickPlan plan(List<String> ids, int rowsPerTask) {
    List<NewInstance> rows = new ArrayList<>();
    List<Decision> decisions = new ArrayList<>();
    for (String id : ids) {
      rows.add(Tasks.pending(id, DAY, Duration.ofMinutes(5)));
      for (int k = 1; k < rowsPerTask; k++) {
        rows.add(Tasks.pendingKey(id, "extra-" + k, Duration.ofMinutes(5)));
      }
      if (rowsPerTask > 1) {
        decisions.add(new Decision(id, "2026-11-28", null, "trigger:a", "task paused"));
      }
    }
    return new TickPlan(
        rows,
        decisions,
        new TreeMap<>(cursors(ids)),
        List.of(),
        new TickCounts(ids.size(), 0, rows.size(), rows.size(), 0, 0, 0, 0, 0, 0));
  }
}
