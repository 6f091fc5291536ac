package dev.carillon.retry;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.ArchiveStore;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Housekeeping moves old finished instances with their events and nothing else. */
@Timeout(120)
class ArchiveTest {
  @Test
  void old_finished_instances_move_to_history_with_their_events_and_recent_or_live_ones_stay() {
    try (Harness h = new Harness("archive")) {
      RetryService service =
          h.start(
              Map.of("retry.retention", "30d"),
              new SettableClock(Instant.parse("2026-03-29T08:00:00Z")));
      String task = h.define(Tasks.daily("house")).id();
      long oldSuccess = succeeded(h, task, "2026-01-01");
      long oldDead = h.newInstance(task, "2026-01-02", Duration.ofMinutes(5)).id();
      h.fail(h.claim(oldDead, "w"), "boom", false);
      service.scanOnce(); // not retryable: DEAD
      assertThat(h.status(oldDead)).isEqualTo(InstanceStatus.DEAD);
      long recentSuccess = succeeded(h, task, "2026-01-03");
      long oldButLive = h.newInstance(task, "2026-01-04", Duration.ofMinutes(5)).id();
      h.claim(oldButLive, "w");
      // Age them: finished 40 days ago (database time); the live one was created long ago too.
      age(h, oldSuccess, 40);
      age(h, oldDead, 31);
      age(h, oldButLive, 40);
      int eventsOfOldSuccess = h.liveEvents(oldSuccess);
      assertThat(eventsOfOldSuccess).isEqualTo(3); // created, claimed, succeeded

      ScanReport r = service.scanOnce();

      assertThat(r.archived()).isEqualTo(2);
      ArchiveStore archive = new ArchiveStore(h.db.dsl());
      assertThat(archive.isArchived(oldSuccess)).isTrue();
      assertThat(archive.isArchived(oldDead)).isTrue();
      assertThat(h.operator.find(oldSuccess)).isEmpty();
      assertThat(h.operator.find(oldDead)).isEmpty();
      assertThat(h.liveEvents(oldSuccess)).isZero();
      assertThat(archive.archivedEventReasons(oldSuccess)).hasSize(eventsOfOldSuccess);
      assertThat(archive.archivedEventReasons(oldDead))
          .anyMatch(reason -> reason.contains("not retryable"));
      assertThat(h.operator.find(recentSuccess)).isPresent();
      assertThat(h.operator.find(oldButLive).map(Instance::status))
          .contains(InstanceStatus.RUNNING);
      assertThat(h.liveEvents(recentSuccess)).isEqualTo(3);
      assertThat(archive.archivedCount()).isEqualTo(2);

      assertThat(service.scanOnce().archived()).isZero();
    }
  }

  private static long succeeded(Harness h, String task, String day) {
    long id = h.newInstance(task, day, Duration.ofMinutes(5)).id();
    h.succeed(h.claim(id, "w"));
    return id;
  }

  private static void age(Harness h, long id, int days) {
    h.db
        .dsl()
        .update(TASK_INSTANCE)
        .set(
            TASK_INSTANCE.FINISHED_AT,
            DSL.field("now() - make_interval(days => {0})", Instant.class, DSL.val(days)))
        .set(
            TASK_INSTANCE.CREATED_AT,
            DSL.field("now() - make_interval(days => {0})", Instant.class, DSL.val(days)))
        .where(TASK_INSTANCE.ID.eq(id))
        .execute();
  }
}
