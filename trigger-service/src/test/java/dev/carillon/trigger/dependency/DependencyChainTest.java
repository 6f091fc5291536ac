package dev.carillon.trigger.dependency;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.devstack.DevStackExtension;
import dev.carillon.election.Fencing;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.retry.ImmediateRetry;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.store.AttemptEnd;
import dev.carillon.store.Database;
import dev.carillon.store.DependencyQueries;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.Lease;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.Outcome;
import dev.carillon.store.RetryStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.TriggerQueries;
import dev.carillon.store.WindowStore;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import dev.carillon.trigger.tick.DefinitionCache;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A → B → C on a real database, workers simulated through the store (claim, complete, retry), the
 * releaser driven one pass at a time.
 */
@ExtendWith(DevStackExtension.class)
@Timeout(120)
class DependencyChainTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(5);
  private static final List<String> DAYS = List.of("2026-11-27", "2026-11-28", "2026-11-29");

  private Database db;
  private Fence fence;
  private Fence retryFence;
  private OperatorStore instances;
  private WindowStore windows;
  private LeaseStore leases;
  private RetryStore retries;
  private TaskStore tasks;
  private final List<Instance> dispatched = new CopyOnWriteArrayList<>();
  private final SettableClock clock = new SettableClock(Instant.parse("2026-11-30T00:00:00Z"));

  @BeforeEach
  void open() {
    db = TestDatabase.fresh("deps");
    instances = new OperatorStore(db.dsl());
    windows = new WindowStore(db.dsl());
    leases = new LeaseStore(db.dsl());
    retries = new RetryStore(db.dsl());
    EpochStore epochs = new EpochStore(db.dsl());
    fence = epochs.begin("trigger", "test");
    retryFence = epochs.begin("retry", "test");
    tasks = new TaskStore(db.dsl());
    tasks.applyAll(
        List.of(
            Tasks.daily("a").retry(new ImmediateRetry(2)).build(),
            Tasks.after("b", WindowKind.DAILY, "a").build(),
            Tasks.after("c", WindowKind.DAILY, "b").build()));
  }

  @AfterEach
  void close() {
    db.close();
  }

  private DependencyReleaser releaser(String actor) {
    return new DependencyReleaser(
        new TriggerQueries(db.dsl()),
        new DefinitionCache(new TriggerQueries(db.dsl())),
        windows,
        new DependencyQueries(db.dsl()),
        actor,
        clock,
        dispatched::addAll,
        () -> true,
        Fencing.fixed(fence));
  }

  /** Claims and completes one PENDING instance as a worker would. */
  private Instance run(Instance pending, Outcome outcome) {
    Instance claimed = leases.claim(List.of(pending.id()), "w1").get(0);
    assertThat(leases.complete(new Lease(claimed.id(), claimed.attempt()), outcome, "worker:w1"))
        .isTrue();
    return instances.find(claimed.id()).orElseThrow();
  }

  private Instance window(String task, String day) {
    return instances.findByWindow(task, day).orElseThrow();
  }

  @Test
  void c_runs_once_per_window_after_b_after_as_retry() {
    DependencyReleaser releaser = releaser("trigger:1");
    for (String day : DAYS) {
      windows.create(List.of(Tasks.pending("a", day, TIMEOUT)), "test");
    }
    for (String day : DAYS) {
      Instance a = window("a", day);
      // A fails once: nothing is released while it is FAILED, RETRY_WAIT or PENDING again.
      Instance failed = run(a, Outcome.failure("flaky tool", false));
      assertThat(releaser.releaseOnce().created()).isEmpty();
      assertThat(
              retries.scheduleRetry(
                  failed,
                  new DependencyQueries(db.dsl()).dbNow(),
                  null,
                  "retry",
                  "retry 1 of 2",
                  retryFence))
          .isTrue();
      assertThat(retries.promoteDueRetries(10, "retry", retryFence)).hasSize(1);
      assertThat(releaser.releaseOnce().created()).isEmpty();
      assertThat(instances.findByWindow("b", day)).isEmpty();

      Instance aDone = run(window("a", day), Outcome.success("ok", false, null));
      assertThat(aDone.attempt()).isEqualTo(2);
      DependencyReleaser.Pass afterA = releaser.releaseOnce();
      assertThat(afterA.created()).extracting(Instance::taskId).containsExactly("b");
      Instance b = afterA.created().get(0);
      assertThat(b.origin()).isEqualTo(Origin.DEPENDENCY);
      assertThat(b.windowKey()).isEqualTo(day);
      assertThat(b.windowStart()).isEqualTo(aDone.windowStart());
      assertThat(b.windowEnd()).isEqualTo(aDone.windowEnd());
      assertThat(b.createdAt()).isAfterOrEqualTo(aDone.finishedAt());
      assertThat(instances.findByWindow("c", day)).isEmpty();

      Instance bDone = run(b, Outcome.success("ok", false, null));
      DependencyReleaser.Pass afterB = releaser.releaseOnce();
      assertThat(afterB.created()).extracting(Instance::taskId).containsExactly("c");
      Instance c = afterB.created().get(0);
      assertThat(c.createdAt()).isAfterOrEqualTo(bDone.finishedAt());
      run(c, Outcome.success("ok", false, null));
    }
    // Nothing more to release, by this releaser or by a new leader starting from the offset.
    assertThat(releaser.releaseOnce().created()).isEmpty();
    DependencyReleaser.Pass failover = releaser("trigger:2").releaseOnce();
    assertThat(failover.created()).isEmpty();
    assertThat(failover.rerun()).isEmpty();
    for (String day : DAYS) {
      assertThat(window("c", day).status()).isEqualTo(InstanceStatus.SUCCESS);
      assertThat(window("c", day).attempt()).isEqualTo(1);
      assertThat(window("b", day).attempt()).isEqualTo(1);
    }
    assertThat(instances.countByStatus("c")).containsEntry(InstanceStatus.SUCCESS, 3);
    assertThat(dispatched).extracting(Instance::taskId).containsOnly("b", "c").hasSize(6);
  }

  @Test
  void a_dead_upstream_skips_the_chain_and_its_rerun_releases_it_again() {
    DependencyReleaser releaser = releaser("trigger:1");
    String day = DAYS.get(0);
    windows.create(List.of(Tasks.pending("a", day, TIMEOUT)), "test");
    Instance failed = run(window("a", day), Outcome.failure("bad input", true));
    assertThat(retries.markDead(failed, null, "retry", "not retryable", false, retryFence))
        .isTrue();

    releaser.releaseOnce(); // b skipped
    releaser.releaseOnce(); // the skip of b cascades to c
    assertThat(window("b", day).status()).isEqualTo(InstanceStatus.SKIPPED);
    assertThat(window("b", day).failReason()).isEqualTo("upstream a dead");
    assertThat(window("c", day).status()).isEqualTo(InstanceStatus.SKIPPED);
    assertThat(window("c", day).failReason()).isEqualTo("upstream b skipped");

    // An operator re-runs A's window; its success re-runs the skipped B, then C.
    assertThat(instances.rerun(window("a", day), "operator", "fixed input")).isPresent();
    run(window("a", day), Outcome.success("ok", false, null));
    DependencyReleaser.Pass pass = releaser.releaseOnce();
    assertThat(pass.rerun()).extracting(Instance::taskId).containsExactly("b");
    run(window("b", day), Outcome.success("ok", false, null));
    assertThat(releaser.releaseOnce().rerun()).extracting(Instance::taskId).containsExactly("c");
    run(window("c", day), Outcome.success("ok", false, null));
    assertThat(releaser.releaseOnce().rerun()).isEmpty();
    assertThat(window("c", day).status()).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(instances.windowEvents("c", day))
        .extracting(InstanceEvent::reason)
        .contains("upstream b skipped", "upstreams of window " + day + " succeeded again; re-run");
  }

  @Test
  void a_downstream_of_two_upstreams_waits_for_both() {
    tasks.applyAll(
        List.of(Tasks.daily("x").build(), Tasks.after("join", WindowKind.DAILY, "a", "x").build()));
    DependencyReleaser releaser = releaser("trigger:1");
    String day = DAYS.get(1);
    windows.create(
        List.of(Tasks.pending("a", day, TIMEOUT), Tasks.pending("x", day, TIMEOUT)), "test");
    run(window("a", day), Outcome.success("ok", false, null));
    assertThat(releaser.releaseOnce().created()).extracting(Instance::taskId).containsExactly("b");
    assertThat(instances.findByWindow("join", day)).isEmpty();
    assertThat(instances.windowEvents("join", day))
        .extracting(InstanceEvent::reason)
        .containsExactly("waiting for upstream x (PENDING)");
    run(window("x", day), Outcome.success("ok", false, null));
    assertThat(releaser.releaseOnce().created())
        .extracting(Instance::taskId)
        .containsExactly("join");
  }

  @Test
  void a_completion_that_commits_after_a_later_one_was_read_is_still_released() throws Exception {
    DependencyReleaser releaser = releaser("trigger:1");
    String early = DAYS.get(0);
    String later = DAYS.get(1);
    windows.create(
        List.of(Tasks.pending("a", early, TIMEOUT), Tasks.pending("a", later, TIMEOUT)), "test");
    Instance first = leases.claim(List.of(window("a", early).id()), "w1").get(0);
    CountDownLatch written = new CountDownLatch(1);
    CountDownLatch commit = new CountDownLatch(1);
    // The early window's completion takes its event id first but commits last.
    CompletableFuture<Void> slow =
        CompletableFuture.runAsync(
            () ->
                db.dsl()
                    .transaction(
                        cfg -> {
                          assertThat(
                                  new LeaseStore(cfg.dsl())
                                      .complete(
                                          new Lease(first.id(), first.attempt()),
                                          Outcome.success("ok", false, null),
                                          "worker:w1"))
                              .isTrue();
                          written.countDown();
                          assertThat(commit.await(1, TimeUnit.MINUTES)).isTrue();
                        }));
    assertThat(written.await(1, TimeUnit.MINUTES)).isTrue();
    run(window("a", later), Outcome.success("ok", false, null));

    DependencyReleaser.Pass before = releaser.releaseOnce();
    assertThat(before.completions()).isEqualTo(1);
    assertThat(before.created()).extracting(Instance::windowKey).containsExactly(later);

    commit.countDown();
    slow.get(1, TimeUnit.MINUTES);
    DependencyReleaser.Pass after = releaser.releaseOnce();
    assertThat(after.completions())
        .as("only the late one is read; the handled one is left out")
        .isEqualTo(1);
    assertThat(after.created()).extracting(Instance::windowKey).containsExactly(early);
    assertThat(releaser.releaseOnce().completions()).isZero();
  }

  @Test
  void with_no_dependency_a_pass_reads_nothing_and_a_later_dependency_starts_after_it() {
    // b and c become plain daily tasks: no task depends on another.
    tasks.applyAll(List.of(Tasks.daily("b").build(), Tasks.daily("c").build()));
    DependencyReleaser releaser = releaser("trigger:1");
    String before = DAYS.get(0);
    windows.create(List.of(Tasks.pending("a", before, TIMEOUT)), "test");
    run(window("a", before), Outcome.success("ok", false, null));

    DependencyReleaser.Pass idle = releaser.releaseOnce();
    assertThat(idle.completions()).isZero();
    assertThat(idle.offset())
        .as("the offset moved to a's completion")
        .isEqualTo(new DependencyQueries(db.dsl()).newestCompletion())
        .isPositive();

    tasks.applyAll(List.of(Tasks.after("b", WindowKind.DAILY, "a").build()));
    assertThat(releaser.releaseOnce().created())
        .as("a's completion before b depended on it releases nothing")
        .isEmpty();
    String after = DAYS.get(1);
    windows.create(List.of(Tasks.pending("a", after, TIMEOUT)), "test");
    run(window("a", after), Outcome.success("ok", false, null));
    assertThat(releaser.releaseOnce().created())
        .extracting(Instance::taskId, Instance::windowKey)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("b", after));
    assertThat(releaser("trigger:2").releaseOnce().created())
        .as("a new leader starts at the stored offset")
        .isEmpty();
  }

  @Test
  void a_pass_reads_every_completion_in_batches() {
    int n = DependencyReleaser.BATCH * 2 + 100;
    List<NewInstance> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(Tasks.pendingKey("a", "k" + i, TIMEOUT));
    }
    windows.create(rows, "test");
    List<Instance> claimed =
        leases.claim(
            db.dsl()
                .select(TASK_INSTANCE.ID)
                .from(TASK_INSTANCE)
                .where(TASK_INSTANCE.TASK_ID.eq("a"))
                .fetch(TASK_INSTANCE.ID),
            "w1");
    assertThat(claimed).hasSize(n);
    List<AttemptEnd> ends =
        claimed.stream()
            .map(
                i ->
                    new AttemptEnd(
                        new Lease(i.id(), i.attempt()), Outcome.success("ok", false, null)))
            .toList();
    assertThat(leases.completeAll(ends, "worker:w1")).hasSize(n);

    DependencyReleaser releaser = releaser("trigger:1");
    DependencyReleaser.Pass pass = releaser.releaseOnce();
    assertThat(pass.completions()).isEqualTo(n);
    assertThat(pass.created()).hasSize(n).extracting(Instance::taskId).containsOnly("b");
    assertThat(releaser.releaseOnce().completions()).isZero();
    assertThat(releaser("trigger:2").releaseOnce().created()).isEmpty();
  }
}
