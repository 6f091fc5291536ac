package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.WORKER_CAPABILITY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.worker.WorkerPresence;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The workers' presence rows: registered, refreshed, expired by age, removed, and read. */
class PresenceStoreTest {
  private static Stores s;
  private static PresenceStore presence;

  @BeforeAll
  static void open() {
    s = Stores.fresh("store_presence");
    presence = new PresenceStore(s.db.dsl());
  }

  @AfterAll
  static void close() {
    s.close();
  }

  private static WorkerPresence live(String id) {
    return presence.live().workers().stream()
        .filter(w -> w.workerId().equals(id))
        .findFirst()
        .orElse(null);
  }

  @Test
  void a_registered_worker_is_live_with_what_it_serves_until_its_row_expires_or_is_removed() {
    presence.register("p-1", Set.of("default", "gpu"), Set.of("noop", "sleep"), true, 4);
    WorkerPresence w = live("p-1");
    assertThat(w).isNotNull();
    assertThat(w.queues()).containsExactlyInAnyOrder("default", "gpu");
    assertThat(w.handlers()).containsExactlyInAnyOrder("noop", "sleep");
    assertThat(w.ready()).isTrue();
    assertThat(w.freeSlots()).isEqualTo(4);

    assertThat(presence.refresh("p-1", false, 0)).isTrue();
    assertThat(live("p-1").ready()).isFalse();
    assertThat(live("p-1").freeSlots()).isZero();

    // Registered again under the same id (a restarted process): what it serves is replaced.
    presence.register("p-1", Set.of("cpu"), Set.of("digest"), true, 2);
    assertThat(live("p-1").queues()).containsExactly("cpu");
    assertThat(live("p-1").handlers()).containsExactly("digest");

    s.db
        .dsl()
        .execute(
            "update worker_presence set last_seen = now() - interval '31 seconds'"
                + " where worker_id = 'p-1'");
    assertThat(live("p-1")).as("not refreshed for longer than " + WorkerPresence.EXPIRY).isNull();
    assertThat(presence.refresh("p-1", true, 2)).isTrue();
    assertThat(live("p-1")).isNotNull();

    presence.remove("p-1");
    assertThat(live("p-1")).isNull();
    assertThat(presence.refresh("p-1", true, 2)).as("gone: the worker registers again").isFalse();
  }

  @Test
  void rows_gone_for_longer_than_the_purge_age_are_deleted() {
    presence.register("p-old", Set.of("default"), Set.of("noop"), true, 1);
    presence.register("p-new", Set.of("default"), Set.of("noop"), true, 1);
    s.db
        .dsl()
        .execute(
            "update worker_presence set last_seen = now() - interval '2 days'"
                + " where worker_id = 'p-old'");
    assertThat(presence.purge(Duration.ofDays(1))).isEqualTo(1);
    assertThat(s.db.dsl().fetchCount(WORKER_CAPABILITY, WORKER_CAPABILITY.WORKER_ID.eq("p-old")))
        .as("its capabilities went with it")
        .isZero();
    assertThat(live("p-new")).isNotNull();
    presence.remove("p-new");
  }

  @Test
  void waiting_counts_pending_instances_nobody_serves_and_why_says_what_is_missing() {
    s.tasks.applyAll(
        List.of(
            Tasks.daily("wait-gpu").queue("gpu-w").handler("summarize").build(),
            Tasks.daily("wait-cpu").queue("cpu-w").handler("noop").build()));
    Instance a = s.newPending("wait-gpu", "2026-11-01");
    s.newPending("wait-gpu", "2026-11-02");
    s.newPending("wait-cpu", "2026-11-01");
    s.leases.claim(List.of(a.id()), "someone");

    assertThat(presence.waiting())
        .contains(
            new PresenceStore.Waiting("gpu-w", "summarize", 1),
            new PresenceStore.Waiting("cpu-w", "noop", 1));
    assertThat(presence.whyWaiting("gpu-w", "summarize"))
        .hasValueSatisfying(
            why ->
                assertThat(why).startsWith("no worker serves queue gpu-w with handler summarize"));

    presence.register("w-cpu", Set.of("cpu-w"), Set.of("noop"), true, 4);
    presence.register("w-gpu-no-plugin", Set.of("gpu-w"), Set.of("noop"), true, 4);
    assertThat(presence.waiting())
        .contains(new PresenceStore.Waiting("gpu-w", "summarize", 1))
        .noneMatch(w -> w.queue().equals("cpu-w"));
    assertThat(presence.whyWaiting("cpu-w", "noop")).isEmpty();
    assertThat(presence.whyWaiting("gpu-w", "summarize"))
        .hasValue(
            "no worker serves queue gpu-w with handler summarize (queue gpu-w is served by"
                + " w-gpu-no-plugin with handlers noop)");
    assertThat(PresenceStore.byQueue(presence.waiting())).containsEntry("gpu-w", 1);
    presence.remove("w-cpu");
    presence.remove("w-gpu-no-plugin");
  }
}
