package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.model.schedule.Window;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The trigger's write path: what a tick commit returns must be exactly what it stored. */
class WindowStoreTickTest {
  private static Database db;
  private static WindowStore windows;
  private static OperatorStore operator;
  private static TaskStore tasks;
  private static Fence fence;

  @BeforeAll
  static void open() {
    db = TestDatabase.fresh("store_tick");
    windows = new WindowStore(db.dsl());
    fence = new EpochStore(db.dsl()).begin("trigger", "test");
    operator = new OperatorStore(db.dsl());
    tasks = new TaskStore(db.dsl());
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void created_instances_equal_the_rows_read_back_for_pending_and_skipped() {
    tasks.applyAll(List.of(Tasks.daily("tick-equal").build()));
    // Sub-microsecond instants and a sub-millisecond timeout: the store rounds them, and what the
    // commit returns must show the stored values, not the planned ones.
    Instant start = Instant.parse("2026-11-29T00:00:00.123456789Z");
    Window w1 = new Window("w1", start, start.plus(Duration.ofHours(1)));
    Window w2 = new Window("w2", start.plusSeconds(3600), start.plusSeconds(7200));
    NewInstance pending =
        NewInstance.pending(
            "tick-equal", w1, start.plusNanos(999), Origin.CATCHUP, Duration.ofNanos(1_500_000), 4);
    NewInstance skipped =
        NewInstance.skipped(
            "tick-equal",
            w2,
            w2.start(),
            Origin.SCHEDULE,
            Duration.ofMinutes(3),
            "x".repeat(Outcome.MAX_REASON + 40));

    List<Instance> created =
        windows.commitTick(
            List.of(pending, skipped),
            List.of(),
            Map.of(
                "tick-equal",
                new TriggerCursor(Instant.parse("2026-11-29T02:00:00Z"), ZoneOffset.UTC)),
            "trigger:t",
            fence);

    assertThat(created).hasSize(2);
    for (Instance i : created) {
      assertThat(i).isEqualTo(operator.find(i.id()).orElseThrow());
    }
    assertThat(created.get(1).failReason()).endsWith("...");
    assertThat(operator.windowEvents("tick-equal", "w2"))
        .extracting(InstanceEvent::kind, InstanceEvent::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                InstanceEvent.Kind.CREATED, created.get(1).failReason()));
    // Every field of a created window's event, which the insert writes from the inserted row.
    assertThat(operator.windowEvents("tick-equal", "w1"))
        .extracting(
            InstanceEvent::instanceId,
            InstanceEvent::taskId,
            InstanceEvent::kind,
            InstanceEvent::from,
            InstanceEvent::to,
            InstanceEvent::attempt,
            InstanceEvent::actor,
            InstanceEvent::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                created.get(0).id(),
                "tick-equal",
                InstanceEvent.Kind.CREATED,
                null,
                InstanceStatus.PENDING,
                0,
                "trigger:t",
                "created for window w1 (CATCHUP)"));
  }

  @Test
  void timestamps_far_from_now_are_stored_as_the_commit_reports_them() {
    tasks.applyAll(List.of(Tasks.daily("tick-edges").build()));
    List<NewInstance> rows = new ArrayList<>();
    String[] instants = {
      "1969-12-31T23:59:59.9999996Z", // rounds up into 1970
      "1900-01-01T00:00:00.000001Z",
      "2026-10-25T01:30:00.5Z",
      "9999-12-31T23:59:59.999999Z"
    };
    for (int k = 0; k < instants.length; k++) {
      Instant at = Instant.parse(instants[k]);
      rows.add(
          NewInstance.pending(
              "tick-edges",
              new Window("e" + k, at, at.plusMillis(1)),
              at,
              Origin.BACKFILL,
              Duration.ofMinutes(1),
              0));
    }

    List<Instance> created = windows.create(rows, "trigger:t");

    assertThat(created).hasSize(instants.length);
    for (Instance i : created) {
      assertThat(i).isEqualTo(operator.find(i.id()).orElseThrow());
    }
    assertThat(created.get(0).windowStart()).isEqualTo(Instant.parse("1970-01-01T00:00:00Z"));
    assertThat(created.get(3).scheduledAt()).isEqualTo(Instant.parse(instants[3]));
  }

  @Test
  void a_window_listed_twice_is_created_once_from_its_first_listing() {
    tasks.applyAll(List.of(Tasks.daily("tick-twice").build()));
    NewInstance first = Tasks.pending("tick-twice", "2026-11-29", Duration.ofMinutes(5));
    NewInstance second = Tasks.pending("tick-twice", "2026-11-29", Duration.ofMinutes(9));

    List<Instance> created = windows.create(List.of(first, second), "trigger:t");

    assertThat(created).hasSize(1);
    assertThat(created.get(0)).isEqualTo(operator.find(created.get(0).id()).orElseThrow());
    assertThat(created.get(0).timeout()).isEqualTo(Duration.ofMinutes(5));
  }
}
