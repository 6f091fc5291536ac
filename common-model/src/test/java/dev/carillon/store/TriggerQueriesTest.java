package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.TriggerQueries.StampedTask;
import dev.carillon.store.TriggerQueries.TaskFingerprint;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TriggerQueriesTest {
  private static Database db;
  private static TaskStore tasks;
  private static WindowStore windows;
  private static LeaseStore leases;
  private static TriggerQueries queries;

  @BeforeAll
  static void open() {
    db = TestDatabase.fresh("trigger_queries");
    tasks = new TaskStore(db.dsl());
    windows = new WindowStore(db.dsl());
    leases = new LeaseStore(db.dsl());
    queries = new TriggerQueries(db.dsl());
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void load_tasks_returns_exactly_the_asked_rows_in_id_order_with_their_stamps() {
    List<TaskDefinition> defs = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      defs.add(Tasks.daily(String.format("load-%02d", i)).build());
    }
    tasks.applyAll(defs);
    // An invalid row (edited by hand) comes back as such; an unknown id is simply absent.
    db.dsl()
        .update(TASK_DEFINITION)
        .set(TASK_DEFINITION.CRON, "not a cron")
        .where(TASK_DEFINITION.TASK_ID.eq("load-07"))
        .execute();
    Map<String, Long> stamps = queries.taskStamps();

    List<StampedTask> loaded = queries.loadTasks(List.of("load-31", "load-07", "load-02", "nope"));

    assertThat(loaded)
        .extracting(s -> s.task().id())
        .containsExactly("load-02", "load-07", "load-31");
    assertThat(loaded).allMatch(s -> s.stamp() == stamps.get(s.task().id()));
    assertThat(loaded.get(0).task().definition()).isPresent();
    assertThat(loaded.get(1).task().error()).isPresent();
  }

  /**
   * Right after a bulk apply PostgreSQL planned the page read as a nested loop comparing every row
   * of the page's key range with every id (23 s for 20,000 ids among 100,000 fresh rows, past the
   * statement timeout). Now each id is one probe of the primary key, before ANALYZE and after it.
   */
  @Test
  void a_page_of_tasks_is_read_by_one_primary_key_probe_per_id_whatever_the_statistics() {
    List<TaskDefinition> defs = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      defs.add(Tasks.daily(String.format("probe-%05d", i)).build());
    }
    tasks.applyAll(defs);
    List<String> ids = new ArrayList<>();
    for (int i = 1_000; i < 2_000; i++) {
      ids.add(String.format("probe-%05d", i));
    }

    for (String state : List.of("as the apply left them", "analyzed")) {
      if (state.equals("analyzed")) {
        db.dsl().execute("ANALYZE task_definition");
      }
      String plan = db.dsl().explain(queries.loadTasksQuery(ids)).plan();

      assertThat(plan)
          .as("statistics %s:%n%s", state, plan)
          .contains("Nested Loop")
          .contains("Index Scan using task_definition_pkey")
          .doesNotContain("Join Filter")
          .doesNotContain("Seq Scan on task_definition")
          .doesNotContain("Merge Join");
    }
    assertThat(queries.loadTasks(ids))
        .extracting(s -> s.task().id())
        .containsExactlyElementsOf(ids);
  }

  @Test
  void live_instances_are_the_asked_tasks_rows_in_a_live_status_oldest_first() {
    tasks.applyAll(
        List.of(
            Tasks.daily("live-a").build(),
            Tasks.daily("live-b").build(),
            Tasks.daily("live-other").build()));
    Instance a1 = insert("live-a", "2026-11-27");
    Instance a2 = insert("live-a", "2026-11-28");
    Instance b1 = insert("live-b", "2026-11-28");
    insert("live-other", "2026-11-28");
    Instance done = insert("live-b", "2026-11-26");
    leases.claim(List.of(done.id()), "w1");
    assertThat(leases.complete(new Lease(done.id(), 1), Outcome.success("ok", false, null), "w1"))
        .isTrue();

    List<Instance> live = queries.liveInstances(List.of("live-a", "live-b", "live-none"));

    assertThat(live).extracting(Instance::id).containsExactly(a1.id(), a2.id(), b1.id());
    assertThat(live).allMatch(i -> i.status() == InstanceStatus.PENDING);
    assertThat(queries.liveInstances(List.of())).isEmpty();
  }

  @Test
  void the_fingerprint_moves_with_every_committed_change_made_through_carillon_or_by_hand() {
    TaskFingerprint start = queries.taskFingerprint();
    assertThat(queries.taskFingerprint()).as("reading moves nothing").isEqualTo(start);

    tasks.applyAll(List.of(Tasks.daily("fp-a").build(), Tasks.daily("fp-b").build()));
    TaskFingerprint applied = queries.taskFingerprint();
    // One apply is one transaction of one upsert per task: the counter moves once, not once per
    // statement (a large apply would otherwise rewrite the counter row thousands of times).
    assertThat(applied.changes()).isEqualTo(start.changes() + 1);

    tasks.setPaused("fp-a", true);
    TaskFingerprint paused = queries.taskFingerprint();
    assertThat(paused).isNotEqualTo(applied);

    db.dsl()
        .update(TASK_DEFINITION)
        .set(TASK_DEFINITION.CRON, "0 0 9 * * ?")
        .where(TASK_DEFINITION.TASK_ID.eq("fp-b"))
        .execute();
    TaskFingerprint edited = queries.taskFingerprint();
    assertThat(edited).as("a hand edit in SQL").isNotEqualTo(paused);

    db.dsl().deleteFrom(TASK_DEFINITION).where(TASK_DEFINITION.TASK_ID.eq("fp-b")).execute();
    TaskFingerprint deleted = queries.taskFingerprint();
    assertThat(deleted).as("a hand delete in SQL").isNotEqualTo(edited);

    assertThatThrownBy(
            () ->
                db.dsl()
                    .transaction(
                        cfg -> {
                          DSL.using(cfg)
                              .update(TASK_DEFINITION)
                              .set(TASK_DEFINITION.CRON, "0 0 10 * * ?")
                              .where(TASK_DEFINITION.TASK_ID.eq("fp-a"))
                              .execute();
                          throw new IllegalStateException("rolled back");
                        }))
        .hasMessageContaining("rolled back");
    assertThat(queries.taskFingerprint()).as("a rolled-back change").isEqualTo(deleted);
  }

  @Test
  void concurrent_applies_of_overlapping_tasks_in_different_orders_all_commit() throws Exception {
    // Each apply is one transaction of one upsert per task. Without a common first lock, two of
    // them taking the same rows in different orders deadlock and one fails; the fingerprint
    // counter is locked before any task row (migration V5), so they queue instead.
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ids.add(String.format("race-%02d", i));
    }
    int appliers = 8;
    ExecutorService pool = Executors.newFixedThreadPool(appliers);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<List<String>>> results = new ArrayList<>();
    try {
      for (int a = 0; a < appliers; a++) {
        List<String> order = new ArrayList<>(ids);
        Collections.shuffle(order, new Random(a));
        String cron = "0 0 " + a + " * * ?";
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  return tasks.applyAll(
                      order.stream().map(id -> Tasks.daily(id, cron).build()).toList());
                }));
      }
      go.countDown();
      for (Future<List<String>> r : results) {
        assertThat(r.get(60, TimeUnit.SECONDS)).hasSize(ids.size());
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(queries.loadTasks(ids)).hasSize(ids.size());
  }

  private static Instance insert(String task, String day) {
    return windows.create(List.of(Tasks.pending(task, day, Duration.ofMinutes(5))), "test").get(0);
  }
}
