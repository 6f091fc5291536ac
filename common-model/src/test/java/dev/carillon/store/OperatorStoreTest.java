package dev.carillon.store;

import static dev.carillon.model.instance.InstanceStatus.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.instance.IllegalTransitionException;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What an operator reads, and the two changes an operator makes, fenced by what was seen. */
class OperatorStoreTest {
  private static Stores s;
  private static OperatorStore operator;

  @BeforeAll
  static void open() {
    s = Stores.fresh("store_operator");
    operator = s.operator;
  }

  @AfterAll
  static void close() {
    s.close();
  }

  @Test
  void instances_are_listed_newest_first_by_task_status_and_time() {
    String task = s.newTask("listed");
    String other = s.newTask("listed-other");
    Instance first = s.newPending(task, "2026-11-01");
    Instance second = s.newPending(task, "2026-11-02");
    Instance third = s.claimOne(task, "2026-11-03", "w");
    s.newPending(other, "2026-11-02");

    assertThat(operator.list(task, null, null, 100))
        .extracting(Instance::id)
        .containsExactly(third.id(), second.id(), first.id());
    assertThat(operator.list(task, PENDING, null, 100))
        .extracting(Instance::id)
        .containsExactly(second.id(), first.id());
    assertThat(operator.list(task, null, second.scheduledAt(), 100))
        .extracting(Instance::id)
        .containsExactly(third.id(), second.id());
    assertThat(operator.list(task, null, null, 1))
        .extracting(Instance::id)
        .containsExactly(third.id());
    assertThat(operator.countByStatus(task)).containsEntry(PENDING, 2).containsEntry(RUNNING, 1);
    assertThat(operator.findByWindow(task, "2026-11-02")).contains(second);
    assertThat(operator.findByWindow(task, "2026-12-31")).isEmpty();
    assertThat(operator.find(Long.MAX_VALUE)).isEmpty();
  }

  @Test
  void a_cancel_fenced_by_what_the_operator_saw_stops_a_run_once() {
    String task = s.newTask("cancelled");
    Instance running = s.claimOne(task, "2026-11-29", "w1");

    Instance cancelled = operator.cancel(running, "op", "cancelled by operator").orElseThrow();

    assertThat(cancelled).isEqualTo(operator.find(running.id()).orElseThrow());
    assertThat(cancelled.status()).isEqualTo(CANCELLED);
    assertThat(cancelled.leaseUntil()).isNull();
    assertThat(cancelled.finishedAt()).isNotNull();
    assertThat(operator.cancel(running, "op", "again")).as("seen is stale").isEmpty();
    assertThat(s.leases.heartbeat("w1", List.of(new Lease(running.id(), 1))))
        .as("the worker's next heartbeat finds its lease gone")
        .isEmpty();
    assertThat(operator.events(running.id()))
        .filteredOn(e -> e.to() == CANCELLED)
        .extracting(InstanceEvent::from, InstanceEvent::actor, InstanceEvent::reason)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(RUNNING, "op", "cancelled by operator"));
  }

  @Test
  void a_rerun_brings_a_finished_instance_back_as_a_fresh_run_keeping_its_attempt() {
    String task = s.newTask("rerun");
    Instance claimed = s.claimOne(task, "2026-11-29", "w1");
    assertThat(s.leases.complete(new Lease(claimed.id(), 1), Outcome.failure("boom", true), "w1"))
        .isTrue();
    Instance failed = operator.find(claimed.id()).orElseThrow();
    assertThat(s.retries.markDead(failed, 1L, "retry", "non-retryable: boom", false, s.retryFence))
        .isTrue();
    Instance dead = operator.find(claimed.id()).orElseThrow();
    assertThatThrownBy(() -> operator.rerun(failed, "op", "stale and not finished"))
        .isInstanceOf(IllegalTransitionException.class);

    Instance again = operator.rerun(dead, "op", "re-run requested").orElseThrow();

    assertThat(again).isEqualTo(operator.find(dead.id()).orElseThrow());
    assertThat(again.status()).isEqualTo(PENDING);
    assertThat(again.attempt()).isEqualTo(1);
    assertThat(again.retryCount()).isZero();
    assertThat(again.nonRetryable()).isFalse();
    assertThat(again.failReason()).isNull();
    assertThat(again.finishedAt()).isNull();
    assertThat(again.workerId()).isNull();
    assertThat(operator.rerun(dead, "op", "twice")).as("seen is stale").isEmpty();
    assertThat(s.leases.claim(List.of(again.id()), "w2"))
        .singleElement()
        .satisfies(i -> assertThat(i.attempt()).isEqualTo(2));
  }

  @Test
  void the_events_of_an_instance_are_its_own_and_a_window_shows_its_decisions_too() {
    String task = s.newTask("events");
    Instance pending =
        s.windows
            .create(List.of(Tasks.pending(task, "2026-11-29", Duration.ofMinutes(5))), "trigger")
            .get(0);
    s.windows.recordDecisions(
        List.of(new Decision(task, "2026-11-29", pending.id(), "trigger", "window exists")),
        s.triggerFence);

    assertThat(operator.events(pending.id()))
        .extracting(InstanceEvent::kind)
        .containsExactly(InstanceEvent.Kind.CREATED, InstanceEvent.Kind.DECISION);
    assertThat(operator.windowEvents(task, "2026-11-29"))
        .extracting(InstanceEvent::kind)
        .containsExactly(InstanceEvent.Kind.CREATED, InstanceEvent.Kind.DECISION);
    assertThat(operator.events(Long.MAX_VALUE)).isEmpty();
    assertThat(operator.list(task, null, Instant.parse("2027-01-01T00:00:00Z"), 10)).isEmpty();
  }

  @Test
  void pages_follow_scheduled_then_id_and_neither_skip_nor_repeat_when_rows_arrive() {
    String task = s.newTask("paged");
    List<Long> ids = new java.util.ArrayList<>();
    for (int d = 1; d <= 7; d++) {
      ids.add(s.newPending(task, String.format("2026-10-%02d", d)).id());
    }
    InstanceFilter mine =
        new InstanceFilter(task, java.util.Set.of(), java.util.Set.of(), null, null);
    List<Instance> first = operator.page(mine, null, 3);
    assertThat(first).extracting(Instance::id).containsExactly(ids.get(6), ids.get(5), ids.get(4));
    Instance last = first.get(2);
    // A newer row arriving between pages does not shift the next page.
    s.newPending(task, "2026-10-31");
    List<Instance> second =
        operator.page(mine, new InstancePosition(last.scheduledAt(), last.id()), 3);
    assertThat(second).extracting(Instance::id).containsExactly(ids.get(3), ids.get(2), ids.get(1));
    Instance end = second.get(2);
    assertThat(operator.page(mine, new InstancePosition(end.scheduledAt(), end.id()), 3))
        .extracting(Instance::id)
        .containsExactly(ids.get(0));

    Instant from = Instant.parse("2026-10-03T00:00:00Z");
    Instant to = Instant.parse("2026-10-05T00:00:00Z");
    assertThat(
            operator.page(
                new InstanceFilter(
                    task,
                    java.util.Set.of(PENDING),
                    java.util.Set.of(dev.carillon.model.instance.Origin.SCHEDULE),
                    from,
                    to),
                null,
                10))
        .as("scheduled in [from, to), PENDING, SCHEDULE")
        .extracting(Instance::id)
        .containsExactly(ids.get(3), ids.get(2));
    assertThat(operator.page(mine.withStatus(DEAD), null, 10)).isEmpty();
  }

  @Test
  void live_and_last_finished_instances_of_tasks() {
    String task = s.newTask("outcomes");
    String quiet = s.newTask("outcomes-quiet");
    Instance done = s.claimOne(task, "2026-09-01", "w1");
    assertThat(s.leases.complete(new Lease(done.id(), 1), Outcome.success("ok", false, null), "w1"))
        .isTrue();
    Instance cancelled = s.newPending(task, "2026-09-02");
    operator.cancel(cancelled, "op", "not needed").orElseThrow();
    Instance pending = s.newPending(task, "2026-09-03");

    assertThat(operator.live(task)).extracting(Instance::id).containsExactly(pending.id());
    java.util.Map<String, Instance> last =
        operator.lastFinished(List.of(task, quiet, "nothing", task));
    assertThat(last).containsOnlyKeys(task);
    assertThat(last.get(task).id()).as("the later finish").isEqualTo(cancelled.id());
    assertThat(last.get(task).status()).isEqualTo(CANCELLED);
  }
}
