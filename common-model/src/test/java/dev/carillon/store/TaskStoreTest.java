package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.task.TaskDefinition;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TaskStoreTest {
  private static Database db;
  private static TaskStore tasks;

  @BeforeAll
  static void open() {
    db = TestDatabase.fresh("task_store");
    tasks = new TaskStore(db.dsl());
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void an_apply_larger_than_one_statement_writes_and_reports_only_what_changed() {
    int n = 2 * TaskStore.APPLY_CHUNK + 500;
    List<String> ids = new ArrayList<>();
    List<TaskDefinition> defs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String id = String.format("apply-%05d", i);
      ids.add(id);
      defs.add(Tasks.daily(id).build());
    }

    assertThat(tasks.applyAll(defs)).as("all new").containsExactlyElementsOf(ids);
    assertThat(tasks.applyAll(defs)).as("nothing changed").isEmpty();

    tasks.setPaused("apply-01500", true);
    List<TaskDefinition> edited = new ArrayList<>(defs);
    edited.set(1500, Tasks.daily("apply-01500").cron("0 0 9 * * ?").build());
    edited.set(2400, Tasks.daily("apply-02400").cron("0 0 10 * * ?").build());
    assertThat(tasks.applyAll(edited)).containsExactly("apply-01500", "apply-02400");

    LoadedTask changed = tasks.load("apply-01500").orElseThrow();
    assertThat(changed.version()).as("1, paused: 2, edited: 3").isEqualTo(3);
    assertThat(tasks.load("apply-02400").orElseThrow().version()).isEqualTo(2);
    assertThat(changed.definition().orElseThrow().trigger().cron()).isEqualTo("0 0 9 * * ?");
    assertThat(changed.definition().orElseThrow().paused())
        .as("paused is operational state, kept by an apply")
        .isTrue();
    assertThat(tasks.load("apply-00007").orElseThrow().version()).isEqualTo(1);
    assertThat(tasks.loadAll()).hasSize(n);
  }

  @Test
  void when_an_id_is_given_twice_the_last_definition_wins() {
    List<String> written =
        tasks.applyAll(
            List.of(
                Tasks.daily("twice").cron("0 0 1 * * ?").build(),
                Tasks.daily("once").build(),
                Tasks.daily("twice").cron("0 0 2 * * ?").build()));

    assertThat(written).containsExactly("twice", "once");
    LoadedTask twice = tasks.load("twice").orElseThrow();
    assertThat(twice.version()).isEqualTo(1);
    assertThat(twice.definition().orElseThrow().trigger().cron()).isEqualTo("0 0 2 * * ?");
  }
}
