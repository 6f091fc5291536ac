package dev.carillon.trigger.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.devstack.DevStackExtension;
import dev.carillon.store.Database;
import dev.carillon.store.TaskStore;
import dev.carillon.store.TriggerQueries;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import dev.carillon.trigger.tick.DefinitionCache;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The trigger's publisher routes by the definitions its ticks hold, and reads the table only for
 * tasks those do not know: a burst of distinct tasks costs no definitions read per publish.
 */
@ExtendWith(DevStackExtension.class)
class DefinitionQueueRouterTest {
  private Database db;
  private TaskStore tasks;
  private DefinitionCache cache;
  private final List<Set<String>> asked = new ArrayList<>();
  private DefinitionQueueRouter router;

  @BeforeEach
  void openDatabase() {
    db = TestDatabase.fresh("queue_router");
    tasks = new TaskStore(db.dsl());
    cache = new DefinitionCache(new TriggerQueries(db.dsl()));
    router =
        new DefinitionQueueRouter(
            cache,
            ids -> {
              asked.add(Set.copyOf(ids));
              return tasks.queues(ids);
            });
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void known_tasks_are_routed_from_memory_and_only_the_others_are_read() {
    tasks.applyAll(
        List.of(
            Tasks.daily("on-gpu").queue("gpu").build(),
            Tasks.daily("on-default").build(),
            Tasks.daily("late").queue("batch").build()));
    cache.refresh();

    assertThat(router.queuesOf(Set.of("on-gpu", "on-default")))
        .isEqualTo(Map.of("on-gpu", "gpu", "on-default", "default"));
    assertThat(asked).as("nothing read for tasks the ticks hold").isEmpty();

    tasks.applyAll(List.of(Tasks.daily("added-since").queue("cpu").build()));
    assertThat(router.queuesOf(Set.of("on-gpu", "added-since", "never-defined")))
        .as("a task defined after the last refresh is read; one without a row is absent")
        .isEqualTo(Map.of("on-gpu", "gpu", "added-since", "cpu"));
    assertThat(asked).containsExactly(Set.of("added-since", "never-defined"));
  }

  @Test
  void a_task_moved_to_another_queue_is_routed_there_from_the_next_refresh() {
    tasks.applyAll(List.of(Tasks.daily("mover").queue("gpu").build()));
    cache.refresh();
    assertThat(router.queuesOf(Set.of("mover"))).isEqualTo(Map.of("mover", "gpu"));

    tasks.applyAll(List.of(Tasks.daily("mover").queue("cpu").build()));
    cache.refresh();

    assertThat(router.queuesOf(Set.of("mover"))).isEqualTo(Map.of("mover", "cpu"));
    assertThat(asked).isEmpty();
  }
}
