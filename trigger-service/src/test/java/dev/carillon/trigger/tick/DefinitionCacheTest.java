package dev.carillon.trigger.tick;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.TaskStore;
import dev.carillon.store.TriggerQueries;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The definition cache reads changed rows in pages (at a million tasks one statement exceeded the
 * default statement timeout): every row arrives whatever the page size, and ids whose order differs
 * between Java and the database's collation (punctuation, case) are not lost at a page's bounds.
 */
@ExtendWith(DevStackExtension.class)
class DefinitionCacheTest {
  private Database db;
  private TaskStore tasks;

  @BeforeEach
  void openDatabase() {
    db = TestDatabase.fresh("definition_cache");
    tasks = new TaskStore(db.dsl());
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void a_first_read_in_pages_loads_every_row_and_a_change_reloads_only_the_changed_ones() {
    List<TaskDefinition> defs = new ArrayList<>();
    // Java orders '-', '.' and digits before '_' and letters; a linguistic collation (en_US)
    // ignores punctuation at first, so "a-c" sorts between "ab" and "ad" there.
    String[] ids = {
      "a-b", "aa", "ab", "a-c", "a_d", "a.e", "b", "b-1", "b1", "b_2", "c.x", "cx", "c", "c-c"
    };
    for (String id : ids) {
      defs.add(Tasks.daily(id).build());
    }
    for (int n = 0; n < 11; n++) {
      defs.add(Tasks.daily("task-" + n).build());
    }
    tasks.applyAll(defs);

    for (int page : new int[] {1, 2, 3, 4, 7, 25, 100}) {
      DefinitionCache cache = new DefinitionCache(new TriggerQueries(db.dsl()), page);
      assertThat(cache.refresh())
          .as("page of %d", page)
          .extracting(TaskDefinition::id)
          .containsExactlyInAnyOrderElementsOf(defs.stream().map(TaskDefinition::id).toList());
      assertThat(cache.lastReadStatements())
          .as("page of %d", page)
          .isEqualTo((25 + page - 1) / page);
    }

    DefinitionCache cache = new DefinitionCache(new TriggerQueries(db.dsl()), 2);
    cache.refresh();
    tasks.applyAll(
        List.of(
            Tasks.daily("a-b").paramsJson("{\"n\":2}").build(),
            Tasks.daily("cx").paramsJson("{\"n\":2}").build(),
            Tasks.daily("task-3").paramsJson("{\"n\":2}").build()));
    tasks.delete("b1", "test", "gone");

    List<TaskDefinition> after = cache.refresh();
    assertThat(cache.lastReadStatements()).as("three changed rows in pages of two").isEqualTo(2);
    assertThat(after).hasSize(24);
    assertThat(after)
        .filteredOn(d -> d.paramsJson().contains("2"))
        .extracting(TaskDefinition::id)
        .containsExactlyInAnyOrder("a-b", "cx", "task-3");
    assertThat(cache.known()).doesNotContain("b1").hasSize(24);
  }
}
