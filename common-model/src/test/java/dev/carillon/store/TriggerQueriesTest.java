package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.TriggerQueries.StampedTask;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TriggerQueriesTest {
  private static Database db;
  private static TaskStore tasks;
  private static InstanceStore instances;
  private static TriggerQueries queries;

  @BeforeAll
  static void open() {
    db = TestDatabase.fresh("trigger_queries");
    tasks = new TaskStore(db.dsl());
    instances = new InstanceStore(db.dsl());
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
    instances.claim(List.of(done.id()), "w1");
    assertThat(
            instances.complete(new Lease(done.id(), 1), Outcome.success("ok", false, null), "w1"))
        .isTrue();

    List<Instance> live = queries.liveInstances(List.of("live-a", "live-b", "live-none"));

    assertThat(live).extracting(Instance::id).containsExactly(a1.id(), a2.id(), b1.id());
    assertThat(live).allMatch(i -> i.status() == InstanceStatus.PENDING);
    assertThat(queries.liveInstances(List.of())).isEmpty();
  }

  private static Instance insert(String task, String day) {
    return instances
        .insertAll(List.of(Tasks.pending(task, day, Duration.ofMinutes(5))), "test")
        .get(0);
  }
}
