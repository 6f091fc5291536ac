package dev.carillon.store;

import static dev.carillon.model.instance.InstanceStatus.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.instance.IllegalTransitionException;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.model.schedule.Window;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Creating windows, the trigger's tick commit, dispatch stamps and a dependency re-run. */
class WindowStoreTest {
  private static final int RACERS = 16;
  private static Stores s;
  private static WindowStore windows;

  @BeforeAll
  static void open() {
    s = Stores.fresh("store_windows");
    windows = s.windows;
  }

  @AfterAll
  static void close() {
    s.close();
  }

  @Test
  void sixteen_threads_inserting_the_same_window_leave_exactly_one_row() throws Exception {
    String task = s.newTask("race-insert");
    List<List<Instance>> results =
        Stores.race(
            RACERS,
            () ->
                windows.create(
                    List.of(Tasks.pending(task, "2026-11-29", Duration.ofMinutes(5))), "t"));

    assertThat(results.stream().mapToInt(List::size).sum()).isEqualTo(1);
    assertThat(s.operator.list(task, null, null, 100)).hasSize(1);
    Instance row = s.operator.findByWindow(task, "2026-11-29").orElseThrow();
    assertThat(s.operator.events(row.id()))
        .filteredOn(e -> e.kind() == InstanceEvent.Kind.CREATED)
        .hasSize(1);
  }

  @Test
  void a_batch_insert_returns_only_the_new_windows() {
    String task = s.newTask("batch-insert");
    s.newPending(task, "2026-11-01");
    List<Instance> created =
        windows.create(
            List.of(
                Tasks.pending(task, "2026-11-01", Duration.ofMinutes(5)),
                Tasks.pending(task, "2026-11-02", Duration.ofMinutes(5)),
                Tasks.pending(task, "2026-11-03", Duration.ofMinutes(5))),
            "t");
    assertThat(created).extracting(Instance::windowKey).containsExactly("2026-11-02", "2026-11-03");
    assertThat(created).allSatisfy(i -> assertThat(i.status()).isEqualTo(PENDING));
  }

  @Test
  void a_tick_commit_moves_cursors_forward_only_with_the_offset_of_the_instant_it_keeps() {
    String task = s.newTask("cursor");
    TriggerCursor later =
        new TriggerCursor(Instant.parse("2026-11-29T10:00:00Z"), ZoneOffset.ofHours(-5));
    TriggerCursor earlier =
        new TriggerCursor(Instant.parse("2026-11-29T09:00:00Z"), ZoneOffset.ofHoursMinutes(5, 45));
    windows.commitTick(
        List.of(Tasks.pending(task, "2026-11-29", Duration.ofMinutes(1))),
        List.of(),
        Map.of(task, later),
        "trigger",
        s.triggerFence);
    List<Instance> again =
        windows.commitTick(
            List.of(Tasks.pending(task, "2026-11-29", Duration.ofMinutes(1))),
            List.of(
                new Decision(task, "2026-11-29", null, "trigger", "window exists, status PENDING")),
            Map.of(task, earlier),
            "trigger",
            s.triggerFence);
    assertThat(again).isEmpty();
    assertThat(s.tasks.cursors()).containsEntry(task, later);

    TriggerCursor next =
        new TriggerCursor(Instant.parse("2026-11-29T11:00:00Z"), ZoneOffset.ofHoursMinutes(5, 45));
    windows.commitTick(List.of(), List.of(), Map.of(task, next), "trigger", s.triggerFence);
    assertThat(s.tasks.cursors()).containsEntry(task, next);
    assertThat(s.operator.windowEvents(task, "2026-11-29"))
        .extracting(InstanceEvent::kind)
        .containsExactly(InstanceEvent.Kind.CREATED, InstanceEvent.Kind.DECISION);
  }

  @Test
  void decisions_recorded_alone_are_events_of_their_window_that_change_no_row() {
    String task = s.newTask("decisions");
    Instance pending = s.newPending(task, "2026-11-29");
    windows.recordDecisions(
        List.of(
            new Decision(task, "2026-11-29", pending.id(), "trigger", "window exists"),
            new Decision(task, "2026-11-30", null, "trigger", "task paused")),
        s.triggerFence);
    windows.recordDecisions(List.of(), s.triggerFence);

    assertThat(s.operator.windowEvents(task, "2026-11-29"))
        .extracting(InstanceEvent::kind, InstanceEvent::instanceId, InstanceEvent::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                InstanceEvent.Kind.CREATED,
                pending.id(),
                "created for window 2026-11-29 (SCHEDULE)"),
            org.assertj.core.groups.Tuple.tuple(
                InstanceEvent.Kind.DECISION, pending.id(), "window exists"));
    assertThat(s.operator.windowEvents(task, "2026-11-30"))
        .extracting(InstanceEvent::kind, InstanceEvent::instanceId, InstanceEvent::to)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(InstanceEvent.Kind.DECISION, null, null));
    assertThat(s.operator.find(pending.id()).orElseThrow()).isEqualTo(pending);
  }

  @Test
  void a_skipped_window_is_recorded_finished_with_its_reason() {
    String task = s.newTask("skipped");
    Instance skipped =
        windows
            .create(
                List.of(
                    NewInstance.skipped(
                        task,
                        new Window(
                            "2026-11-29",
                            Instant.parse("2026-11-29T00:00:00Z"),
                            Instant.parse("2026-11-30T00:00:00Z")),
                        Instant.parse("2026-11-29T08:00:00Z"),
                        Origin.CATCHUP,
                        Duration.ofMinutes(1),
                        "outside catch-up window")),
                "trigger")
            .get(0);
    assertThat(skipped.status()).isEqualTo(InstanceStatus.SKIPPED);
    assertThat(skipped.failReason()).isEqualTo("outside catch-up window");
    assertThat(skipped.finishedAt()).isNotNull();
    assertThat(s.leases.claim(List.of(skipped.id()), "w")).isEmpty();
  }

  @Test
  void a_dispatch_stamp_skips_a_row_another_transaction_holds_instead_of_waiting_for_it()
      throws Exception {
    String task = s.newTask("dispatch-locked");
    Instance held = s.newPending(task, "2026-11-01");
    Instance free = s.newPending(task, "2026-11-02");
    CountDownLatch locked = new CountDownLatch(1);
    CountDownLatch stamped = new CountDownLatch(1);
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      // Another transaction (in production: a worker's claim) holds the row lock of `held`.
      Future<?> holder =
          other.submit(
              () ->
                  s.db
                      .dsl()
                      .transaction(
                          cfg -> {
                            org.jooq
                                .impl
                                .DSL
                                .using(cfg)
                                .execute(
                                    "select id from task_instance where id = ? for update",
                                    held.id());
                            locked.countDown();
                            assertThat(stamped.await(30, TimeUnit.SECONDS)).isTrue();
                          }));
      assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();

      // Returns while the lock is still held (the holder waits for `stamped`), so it did not wait.
      assertThat(windows.markDispatched(List.of(held.id(), free.id()))).isEqualTo(1);
      stamped.countDown();
      holder.get(30, TimeUnit.SECONDS);
    } finally {
      stamped.countDown();
      other.shutdownNow();
    }
    assertThat(s.operator.find(free.id()).orElseThrow().dispatchedAt()).isNotNull();
    assertThat(s.operator.find(held.id()).orElseThrow().dispatchedAt())
        .as("skipped: a later sweep publishes it again")
        .isNull();
  }

  @Test
  void a_stamp_larger_than_one_chunk_stamps_every_pending_row_in_fixed_size_statements() {
    String task = s.newTask("dispatch");
    int n = DispatchStamp.CHUNK * 2 + DispatchStamp.CHUNK / 2;
    List<dev.carillon.model.instance.NewInstance> rows = new java.util.ArrayList<>();
    for (int k = 0; k < n; k++) {
      rows.add(dev.carillon.testsupport.Tasks.pendingKey(task, "k" + k, Duration.ofMinutes(5)));
    }
    List<Instance> created = windows.create(rows, "trigger");
    assertThat(created).hasSize(n);
    // One row in the last chunk is claimed already: it needs no stamp.
    Instance claimed = created.get(n - 1);
    assertThat(new LeaseStore(s.db.dsl()).claim(List.of(claimed.id()), "w1")).hasSize(1);

    assertThat(windows.markDispatched(created.stream().map(Instance::id).toList()))
        .isEqualTo(n - 1);

    assertThat(
            s.db
                .dsl()
                .fetchCount(
                    dev.carillon.store.jooq.Tables.TASK_INSTANCE,
                    dev.carillon.store.jooq.Tables.TASK_INSTANCE
                        .TASK_ID
                        .eq(task)
                        .and(
                            dev.carillon.store.jooq.Tables.TASK_INSTANCE.DISPATCHED_AT
                                .isNotNull())))
        .isEqualTo(n - 1);
    assertThat(s.operator.find(claimed.id()).orElseThrow().dispatchedAt()).isNull();
  }

  @Test
  void a_stamp_writes_one_statement_per_chunk_of_ids_and_none_for_no_ids() {
    assertThat(LeaseStore.stampStatements(0)).isZero();
    assertThat(LeaseStore.stampStatements(1)).isEqualTo(1);
    assertThat(LeaseStore.stampStatements(DispatchStamp.CHUNK)).isEqualTo(1);
    assertThat(LeaseStore.stampStatements(DispatchStamp.CHUNK + 1)).isEqualTo(2);
    assertThat(LeaseStore.stampStatements(DispatchStamp.CHUNK * 2 + DispatchStamp.CHUNK / 2))
        .isEqualTo(3);
  }

  @Test
  void a_pending_instance_created_ahead_of_its_fire_time_is_not_swept_before_it() {
    String task = s.newTask("dispatch-ahead");
    Instant start = Instant.parse("2026-11-01T00:00:00Z");
    Instance ahead =
        windows
            .create(
                List.of(
                    NewInstance.pending(
                        task,
                        new Window("ahead", start, start.plusSeconds(60)),
                        // Due in an hour by the database's clock.
                        Instant.now().plus(Duration.ofHours(1)),
                        Origin.SCHEDULE,
                        Duration.ofMinutes(5),
                        3)),
                "t")
            .get(0);
    Instance due = s.newPending(task, "2026-11-01");
    // Both left unstamped long past the sweep's grace, as after a leader died holding them.
    s.db
        .dsl()
        .execute(
            "update task_instance set updated_at = now() - interval '10 minutes' where id in (?, ?)",
            ahead.id(),
            due.id());

    assertThat(windows.undispatched(Duration.ofMinutes(1), Duration.ofMinutes(5), 1000))
        .extracting(Instance::id)
        .contains(due.id())
        .doesNotContain(ahead.id());

    s.db
        .dsl()
        .execute(
            "update task_instance set scheduled_at = now() - interval '1 second' where id = ?",
            ahead.id());
    assertThat(windows.undispatched(Duration.ofMinutes(1), Duration.ofMinutes(5), 1000))
        .as("once due, it is swept like any other")
        .extracting(Instance::id)
        .contains(ahead.id(), due.id());
  }

  @Test
  void undispatched_pending_instances_are_found_until_stamped() {
    String task = s.newTask("dispatch");
    Instance a = s.newPending(task, "2026-11-01");
    Instance b = s.newPending(task, "2026-11-02");
    assertThat(windows.undispatched(Duration.ZERO, Duration.ofMinutes(5), 1000))
        .extracting(Instance::id)
        .contains(a.id(), b.id());
    assertThat(windows.markDispatched(List.of(a.id()))).isEqualTo(1);
    assertThat(windows.undispatched(Duration.ZERO, Duration.ofMinutes(5), 1000))
        .extracting(Instance::id)
        .contains(b.id())
        .doesNotContain(a.id());
    s.db
        .dsl()
        .execute(
            "update task_instance set dispatched_at = now() - interval '10 minutes' where id = ?",
            a.id());
    assertThat(windows.undispatched(Duration.ZERO, Duration.ofMinutes(5), 1000))
        .as("dispatched long ago, but no live worker serves it: it waits in its topic")
        .extracting(Instance::id)
        .doesNotContain(a.id());
    PresenceStore presence = new PresenceStore(s.db.dsl());
    presence.register("dispatch-worker", Set.of("default"), Set.of("noop"), true, 1);
    try {
      assertThat(windows.undispatched(Duration.ZERO, Duration.ofMinutes(5), 1000))
          .extracting(Instance::id)
          .contains(a.id());
    } finally {
      presence.remove("dispatch-worker");
    }
  }

  @Test
  void a_rerun_reopens_a_finished_window_once_and_clears_its_last_run() {
    String task = s.newTask("window-rerun");
    Instance claimed = s.claimOne(task, "2026-11-29", "w1");
    assertThat(
            s.leases.complete(
                new Lease(claimed.id(), 1), Outcome.success("done", true, "s3://x"), "w1"))
        .isTrue();
    Instance done = s.operator.find(claimed.id()).orElseThrow();

    Instance reopened =
        windows.rerun(done, "trigger", "upstreams succeeded again", s.triggerFence).orElseThrow();

    assertThat(reopened).isEqualTo(s.operator.find(done.id()).orElseThrow());
    assertThat(reopened.status()).isEqualTo(PENDING);
    assertThat(reopened.attempt()).as("the fencing token only grows").isEqualTo(1);
    assertThat(reopened.resultSummary()).isNull();
    assertThat(reopened.resultUri()).isNull();
    assertThat(reopened.finishedAt()).isNull();
    assertThat(reopened.dispatchedAt()).isNull();
    assertThat(windows.rerun(done, "trigger", "again", s.triggerFence))
        .as("seen is stale now")
        .isEmpty();
    assertThatThrownBy(() -> windows.rerun(reopened, "trigger", "not finished", s.triggerFence))
        .isInstanceOf(IllegalTransitionException.class);
    assertThat(s.operator.events(done.id()))
        .filteredOn(e -> e.from() == SUCCESS)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.to()).isEqualTo(PENDING);
              assertThat(e.actor()).isEqualTo("trigger");
              assertThat(e.reason()).isEqualTo("upstreams succeeded again");
            });
  }
}
