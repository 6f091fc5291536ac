package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.RunSpec;
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
    edited.set(1500, Tasks.daily("apply-01500", "0 0 9 * * ?").build());
    edited.set(2400, Tasks.daily("apply-02400", "0 0 10 * * ?").build());
    assertThat(tasks.applyAll(edited)).containsExactly("apply-01500", "apply-02400");

    LoadedTask changed = tasks.load("apply-01500").orElseThrow();
    assertThat(changed.version()).as("1, paused: 2, edited: 3").isEqualTo(3);
    assertThat(tasks.load("apply-02400").orElseThrow().version()).isEqualTo(2);
    assertThat(((CronTrigger) changed.definition().orElseThrow().trigger()).cron())
        .isEqualTo("0 0 9 * * ?");
    assertThat(changed.definition().orElseThrow().paused())
        .as("paused is operational state, kept by an apply")
        .isTrue();
    assertThat(tasks.load("apply-00007").orElseThrow().version()).isEqualTo(1);
    assertThat(tasks.loadAll())
        .as("the other tests share the database")
        .filteredOn(t -> t.id().startsWith("apply-"))
        .hasSize(n);
  }

  @Test
  void when_an_id_is_given_twice_the_last_definition_wins() {
    List<String> written =
        tasks.applyAll(
            List.of(
                Tasks.daily("twice", "0 0 1 * * ?").build(),
                Tasks.daily("once").build(),
                Tasks.daily("twice", "0 0 2 * * ?").build()));

    assertThat(written).containsExactly("twice", "once");
    LoadedTask twice = tasks.load("twice").orElseThrow();
    assertThat(twice.version()).isEqualTo(1);
    assertThat(((CronTrigger) twice.definition().orElseThrow().trigger()).cron())
        .isEqualTo("0 0 2 * * ?");
  }

  @Test
  void a_run_spec_is_read_without_the_trigger_and_only_where_handler_and_params_are_valid() {
    tasks.applyAll(
        List.of(
            Tasks.daily("spec-ok").handler("noop").paramsJson("{\"topic\":\"ai\"}").build(),
            Tasks.daily("spec-bad-cron").build(),
            Tasks.daily("spec-bad-params").build(),
            Tasks.daily("spec-bad-handler").build()));
    // Edited by hand, past the checks of an apply.
    db.dsl()
        .execute("UPDATE task_definition SET cron = 'not a cron' WHERE task_id = 'spec-bad-cron'");
    db.dsl()
        .execute("UPDATE task_definition SET params = '[1, 2]' WHERE task_id = 'spec-bad-params'");
    db.dsl()
        .execute(
            "UPDATE task_definition SET handler = 'Bad Handler' WHERE task_id = 'spec-bad-handler'");

    var specs =
        tasks.runSpecs(
            List.of(
                "spec-ok", "spec-bad-cron", "spec-bad-params", "spec-bad-handler", "spec-gone"));

    assertThat(specs.keySet()).containsExactlyInAnyOrder("spec-ok", "spec-bad-cron");
    assertThat(specs.get("spec-ok"))
        .isEqualTo(new RunSpec("spec-ok", "noop", "{\"topic\":\"ai\"}", 1));
    assertThat(tasks.find("spec-bad-cron"))
        .as("the whole definition is invalid, but a run needs only handler and params")
        .isEmpty();
  }

  @Test
  void a_deleted_task_is_hidden_and_an_apply_revives_it_with_a_new_version_and_history() {
    TaskDefinition def = Tasks.daily("deleted-then-revived").build();
    assertThat(tasks.apply(List.of(def), "api:alice"))
        .containsExactly(
            new TaskStore.Applied("deleted-then-revived", 1, TaskStore.ApplyOutcome.CREATED));
    assertThat(tasks.setPaused("deleted-then-revived", true, "api:bob")).isTrue();
    assertThat(tasks.setPaused("deleted-then-revived", true, "api:bob")).as("already").isFalse();

    TaskStore.Deleted deleted =
        tasks.delete("deleted-then-revived", "api:carol", "retired").orElseThrow();
    assertThat(deleted.version()).isEqualTo(3);
    assertThat(tasks.delete("deleted-then-revived", "api:carol", "again")).isEmpty();
    assertThat(tasks.load("deleted-then-revived")).isEmpty();
    assertThat(tasks.loadAll()).extracting(LoadedTask::id).doesNotContain("deleted-then-revived");
    assertThat(tasks.deletedAt("deleted-then-revived")).contains(deleted.deletedAt());
    assertThat(tasks.setPaused("deleted-then-revived", false, "api:bob"))
        .as("a deleted task is not resumed")
        .isFalse();

    assertThat(tasks.apply(List.of(def), "api:alice"))
        .as("the same content revives it")
        .containsExactly(
            new TaskStore.Applied("deleted-then-revived", 4, TaskStore.ApplyOutcome.REVIVED));
    assertThat(tasks.apply(List.of(def), "api:alice"))
        .containsExactly(
            new TaskStore.Applied("deleted-then-revived", 4, TaskStore.ApplyOutcome.UNCHANGED));
    assertThat(tasks.load("deleted-then-revived")).isPresent();
    assertThat(tasks.deletedAt("deleted-then-revived")).isEmpty();

    assertThat(tasks.events("deleted-then-revived"))
        .extracting(
            e ->
                e.kind()
                    + " v"
                    + e.version()
                    + " "
                    + e.actor()
                    + (e.reason() == null ? "" : " " + e.reason()))
        .containsExactly(
            "CREATED v1 api:alice",
            "PAUSED v2 api:bob",
            "DELETED v3 api:carol retired",
            "REVIVED v4 api:alice");
  }

  @Test
  void tasks_page_by_id_with_filters_and_without_deleted_ones() {
    List<TaskDefinition> defs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      defs.add(Tasks.daily("paging-" + i).handler(i % 2 == 0 ? "noop" : "sleep").build());
    }
    tasks.apply(defs, "test");
    tasks.setPaused("paging-3", true, "test");
    tasks.delete("paging-4", "test", null);

    assertThat(tasks.page(null, null, "paging-", 2))
        .extracting(LoadedTask::id)
        .containsExactly("paging-0", "paging-1");
    assertThat(tasks.page(null, null, "paging-1", 10))
        .extracting(LoadedTask::id)
        .filteredOn(id -> id.startsWith("paging-"))
        .containsExactly("paging-2", "paging-3");
    assertThat(tasks.page(true, null, "paging-", 10))
        .extracting(LoadedTask::id)
        .filteredOn(id -> id.startsWith("paging-"))
        .containsExactly("paging-3");
    assertThat(tasks.page(null, "sleep", "paging-", 10))
        .extracting(LoadedTask::id)
        .filteredOn(id -> id.startsWith("paging-"))
        .containsExactly("paging-1", "paging-3");
  }

  @Test
  void the_queue_is_stored_changing_it_is_a_new_version_and_queues_reads_it_by_task() {
    tasks.applyAll(List.of(Tasks.daily("q-a").build(), Tasks.daily("q-b").queue("gpu").build()));
    assertThat(tasks.find("q-b").orElseThrow().queue()).isEqualTo("gpu");
    assertThat(tasks.find("q-a").orElseThrow().queue()).isEqualTo(TaskDefinition.DEFAULT_QUEUE);
    assertThat(tasks.queues(List.of("q-a", "q-b", "q-missing")))
        .containsExactlyInAnyOrderEntriesOf(java.util.Map.of("q-a", "default", "q-b", "gpu"));

    long before = tasks.find("q-b").orElseThrow().version();
    assertThat(tasks.applyAll(List.of(Tasks.daily("q-b").queue("gpu").build()))).isEmpty();
    assertThat(tasks.applyAll(List.of(Tasks.daily("q-b").queue("cpu").build())))
        .containsExactly("q-b");
    TaskDefinition moved = tasks.find("q-b").orElseThrow();
    assertThat(moved.queue()).isEqualTo("cpu");
    assertThat(moved.version()).isEqualTo(before + 1);
  }
}
