package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The event table has no index on {@code instance_id} (V7): the reads by instance go through the
 * window index. Here they must still fetch only their own rows, under forced generic plans and the
 * statistics of the empty tables, with 20,000 other instances and their events in the way (as in
 * {@link ScanPlansTest}).
 */
class EventPlansTest {
  private static final int ROWS = 20_000;
  private static final int FINISHED = 3;

  private static Database db;
  private static List<Long> finished;
  private static long running;
  private static Fence fence;

  @BeforeAll
  static void open() {
    db = TestDatabase.genericPlans("event_plans");
    WindowStore windows = new WindowStore(db.dsl());
    fence = new EpochStore(db.dsl()).begin("retry", "test");
    LeaseStore leases = new LeaseStore(db.dsl());
    new TaskStore(db.dsl())
        .applyAll(
            List.of(
                Tasks.daily("in-the-way").build(),
                Tasks.daily("done").build(),
                Tasks.daily("live").build()));
    db.dsl().execute("ANALYZE task_instance");
    db.dsl().execute("ANALYZE instance_event");
    List<NewInstance> rows = new ArrayList<>(ROWS);
    for (int i = 0; i < ROWS; i++) {
      rows.add(Tasks.pendingKey("in-the-way", "k" + i, Duration.ofMinutes(10)));
    }
    windows.create(rows, "test");
    finished = new ArrayList<>();
    for (int i = 0; i < FINISHED; i++) {
      Instance created =
          windows
              .create(List.of(Tasks.pendingKey("done", "d" + i, Duration.ofMinutes(1))), "test")
              .get(0);
      leases.claim(List.of(created.id()), "w-1");
      assertThat(
              leases.complete(
                  new Lease(created.id(), 1), Outcome.success("ok", false, null), "w-1"))
          .isTrue();
      finished.add(created.id());
    }
    // Claimed, not finished: the archiver leaves it, whichever test runs first.
    running =
        windows
            .create(List.of(Tasks.pendingKey("live", "l", Duration.ofMinutes(10))), "test")
            .get(0)
            .id();
    leases.claim(List.of(running), "w-1");
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void the_events_of_one_instance_fetch_only_that_instance_and_its_events() {
    TableReads.onOneSession(
        db,
        session -> {
          OperatorStore operator = new OperatorStore(session);
          TableReads total = TableReads.NONE;
          // Six runs, past the five after which a prepared statement may go generic.
          for (int run = 0; run < 6; run++) {
            TableReads before = reads(session);
            assertThat(operator.events(running))
                .extracting(InstanceEvent::instanceId, InstanceEvent::kind)
                .containsExactly(
                    org.assertj.core.groups.Tuple.tuple(running, InstanceEvent.Kind.CREATED),
                    org.assertj.core.groups.Tuple.tuple(running, InstanceEvent.Kind.TRANSITION));
            total = total.plus(reads(session).minus(before));
          }
          assertThat(total.sequential()).as("rows read sequentially").isZero();
          assertThat(total.index()).as("the instance and its 2 events, 6 times").isEqualTo(6 * 3);
        });
  }

  @Test
  void the_archiver_moves_the_events_of_its_instances_reading_only_them() {
    TableReads.onOneSession(
        db,
        session -> {
          ArchiveStore archive = new ArchiveStore(session);
          TableReads before = reads(session);
          assertThat(archive.archiveFinished(Duration.ZERO, 50, fence))
              .containsExactlyInAnyOrderElementsOf(finished);
          TableReads read = reads(session).minus(before);
          assertThat(read.sequential()).as("rows read sequentially").isZero();
          // Each finished instance and its 3 events, read a few times over (pick, copy, delete).
          assertThat(read.index()).as("rows fetched by index").isLessThan(100);
          for (long id : finished) {
            assertThat(archive.archivedEventReasons(id)).hasSize(3);
            assertThat(new OperatorStore(session).events(id)).isEmpty();
          }
          assertThat(session.fetchCount(DSL.table("instance_event")))
              .as("the events of the other instances stay")
              .isEqualTo(ROWS + 2);
        });
  }

  @Test
  void a_repeated_decision_finds_its_window_s_latest_event_by_index() {
    TableReads.onOneSession(
        db,
        session -> {
          WindowStore windows = new WindowStore(session);
          Decision exists =
              new Decision("in-the-way", "k5", null, "trigger:t", "window exists, status PENDING");
          TableReads total = TableReads.NONE;
          // Six runs, past the five after which a prepared statement may go generic.
          for (int run = 0; run < 6; run++) {
            TableReads before = reads(session);
            windows.recordDecisions(List.of(exists), fence);
            total = total.plus(reads(session).minus(before));
          }
          try {
            assertThat(new OperatorStore(session).windowEvents("in-the-way", "k5"))
                .extracting(InstanceEvent::kind, InstanceEvent::repeats)
                .containsExactly(
                    org.assertj.core.groups.Tuple.tuple(InstanceEvent.Kind.CREATED, 1),
                    org.assertj.core.groups.Tuple.tuple(InstanceEvent.Kind.DECISION, 6));
            assertThat(total.sequential()).as("rows read sequentially").isZero();
            // The window's one or two events, a few times per run (latest, then the update).
            assertThat(total.index()).as("rows fetched by index").isLessThan(6 * 8);
          } finally {
            // The archiver's test counts every event row.
            session.execute("DELETE FROM instance_event WHERE kind = 'DECISION'");
          }
        });
  }

  private static TableReads reads(DSLContext session) {
    return TableReads.of(session, "task_instance", "instance_event");
  }
}
