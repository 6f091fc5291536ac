package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dispatch backlog's age counts from when a row became PENDING, not from its creation: a window
 * re-queued by a retry is not an old backlog. Its own database, so that no other test's PENDING
 * rows are in the backlog.
 */
class UndispatchedAgeTest {
  private static Stores s;

  @BeforeAll
  static void open() {
    s = Stores.fresh("store_undispatched_age");
  }

  @AfterAll
  static void close() {
    s.close();
  }

  @Test
  void the_age_is_the_longest_wait_since_becoming_pending_among_undispatched_rows() {
    assertThat(s.windows.oldestUndispatchedAge()).as("no backlog").isEmpty();

    String task = s.newTask("age");
    // Created ten minutes ago, re-queued by a retry 20 s ago: waiting 20 s.
    Instance requeued = s.newPending(task, "2026-11-01");
    backdate(requeued, "10 minutes", "20 seconds");
    // Created and never published, 60 s ago: waiting 60 s, the longest wait.
    Instance fresh = s.newPending(task, "2026-11-02");
    backdate(fresh, "60 seconds", "60 seconds");

    assertThat(s.windows.oldestUndispatchedAge())
        .hasValueSatisfying(
            age -> assertThat(age).isBetween(Duration.ofSeconds(60), Duration.ofSeconds(90)));

    assertThat(s.windows.markDispatched(List.of(fresh.id()))).isEqualTo(1);
    assertThat(s.windows.oldestUndispatchedAge())
        .as("only the re-queued row is left; its creation ten minutes ago does not count")
        .hasValueSatisfying(
            age -> assertThat(age).isBetween(Duration.ofSeconds(20), Duration.ofSeconds(50)));

    assertThat(s.windows.markDispatched(List.of(requeued.id()))).isEqualTo(1);
    assertThat(s.windows.oldestUndispatchedAge()).as("all published").isEmpty();
  }

  private static void backdate(Instance row, String created, String updated) {
    s.db
        .dsl()
        .execute(
            "update task_instance set created_at = now() - cast(? as interval),"
                + " updated_at = now() - cast(? as interval) where id = ?",
            created,
            updated,
            row.id());
  }
}
