package dev.carillon.trigger.tick;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.TaskStore;
import dev.carillon.store.TriggerQueries;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jooq.impl.DSL;
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
    long loaded = cache.generation();
    cache.refresh();
    assertThat(cache.generation()).as("nothing changed: nothing to prune again").isEqualTo(loaded);
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
    assertThat(cache.generation()).isNotEqualTo(loaded);
  }

  @Test
  void one_cache_shared_by_racing_loops_gives_each_the_same_current_definitions() throws Exception {
    List<TaskDefinition> defs = new ArrayList<>();
    for (int n = 0; n < 40; n++) {
      defs.add(Tasks.daily("shared-" + n).build());
    }
    tasks.applyAll(defs);
    DefinitionCache cache = new DefinitionCache(new TriggerQueries(db.dsl()), 7);
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService loops = Executors.newFixedThreadPool(4);
    List<Future<Integer>> passes = new ArrayList<>();
    try {
      for (int t = 0; t < 4; t++) {
        passes.add(
            loops.submit(
                () -> {
                  int n = 0;
                  while (!stop.get()) {
                    assertThat(cache.refresh()).hasSize(40);
                    n++;
                  }
                  return n;
                }));
      }
      // Twenty edits while four loops refresh the one cache.
      for (int v = 1; v <= 20; v++) {
        tasks.applyAll(
            List.of(Tasks.daily("shared-" + (v % 5)).paramsJson("{\"v\":" + v + "}").build()));
      }
    } finally {
      stop.set(true);
      loops.shutdown();
    }
    assertThat(loops.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    for (Future<Integer> f : passes) {
      assertThat(f.get()).as("refresh passes of one loop").isPositive();
    }

    List<TaskDefinition> now = cache.refresh();
    assertThat(cache.refresh()).as("no change since: the same list").isSameAs(now);
    assertThat(now)
        .filteredOn(d -> d.id().equals("shared-0"))
        .singleElement()
        .satisfies(d -> assertThat(d.paramsJson()).contains("20"));
    assertThat(now)
        .filteredOn(d -> d.id().equals("shared-4"))
        .singleElement()
        .satisfies(d -> assertThat(d.paramsJson()).contains("19"));
  }

  @Test
  void a_loop_stopped_while_another_reads_stops_at_once_with_a_clear_error() throws Exception {
    tasks.applyAll(List.of(Tasks.daily("slow").build()));
    DefinitionCache cache = new DefinitionCache(new TriggerQueries(db.dsl()));
    ExecutorService reader = Executors.newSingleThreadExecutor();
    try (Connection lock = db.dataSource().getConnection()) {
      lock.setAutoCommit(false);
      // The fingerprint's table locked: the first loop's refresh waits inside its statement,
      // holding the cache.
      DSL.using(lock).execute("LOCK TABLE task_definition_change IN ACCESS EXCLUSIVE MODE");
      Future<List<TaskDefinition>> reading = reader.submit(cache::refresh);
      await("the first loop's read blocked by the lock")
          .atMost(Duration.ofSeconds(10))
          .until(() -> blockedOnLock() == 1);

      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicBoolean flagKept = new AtomicBoolean();
      Thread second =
          new Thread(
              () -> {
                try {
                  cache.refresh();
                } catch (RuntimeException e) {
                  failure.set(e);
                  flagKept.set(Thread.currentThread().isInterrupted());
                }
              },
              "second-loop");
      second.start();
      await("the second loop waiting for the cache")
          .atMost(Duration.ofSeconds(10))
          .until(() -> second.getState() == Thread.State.WAITING);
      second.interrupt();
      second.join(Duration.ofSeconds(5).toMillis());

      assertThat(second.isAlive()).as("the stopped loop ended").isFalse();
      assertThat(reading.isDone()).as("while the first read still waits").isFalse();
      assertThat(failure.get())
          .isInstanceOf(DefinitionCache.DefinitionsUnavailableException.class)
          .hasMessageContaining("interrupted while another loop read the task definitions");
      assertThat(flagKept).as("the interrupt is kept for the loop").isTrue();
      lock.rollback();
      assertThat(reading.get(10, TimeUnit.SECONDS)).extracting(TaskDefinition::id).contains("slow");
    } finally {
      reader.shutdownNow();
    }
  }

  /** Sessions of the test's database waiting for a lock now. */
  private int blockedOnLock() {
    Object count =
        db.dsl()
            .fetchValue(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND wait_event_type = 'Lock'");
    return ((Number) count).intValue();
  }
}
