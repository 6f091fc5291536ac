package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.resume.EffectRecord;
import dev.carillon.model.resume.EffectStart;
import dev.carillon.model.resume.RerunMode;
import dev.carillon.model.resume.ResumeRules;
import dev.carillon.model.resume.SavedCheckpoint;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checkpoints and effects against PostgreSQL: each write fenced by the attempt in the statement (or
 * transaction) that makes it, the lease renewed with it, and what the next attempt reads.
 */
class ResumeStoreTest {
  private static final int RACERS = 16;
  private static Stores s;
  private static ResumeStore resume;

  @BeforeAll
  static void open() {
    s = Stores.fresh("store_resume");
    resume = new ResumeStore(s.db.dsl());
  }

  @AfterAll
  static void close() {
    s.close();
  }

  private static Lease lease(Instance i) {
    return new Lease(i.id(), i.attempt());
  }

  /** Gives the attempt back and lets {@code worker} claim the next one, as a takeover does. */
  private static Instance nextAttempt(Instance running, String worker) {
    assertThat(s.leases.release(lease(running), running.workerId(), "test takeover")).isTrue();
    return s.leases.claim(List.of(running.id()), worker).get(0);
  }

  @Test
  void a_checkpoint_replaces_the_attempts_previous_one_and_the_next_attempt_reads_it() {
    Instance first = s.claimOne(s.newTask("cp-next"), "2026-11-29", "w1");

    assertThat(resume.saveCheckpoint(lease(first), "w1", "{\"next\":10}")).isPresent();
    assertThat(resume.saveCheckpoint(lease(first), "w1", "{\"next\":20}")).isPresent();
    assertThat(resume.lastCheckpointBefore(first.id(), first.attempt()))
        .as("an attempt does not read its own checkpoints back")
        .isEmpty();

    Instance second = nextAttempt(first, "w2");
    SavedCheckpoint last = resume.lastCheckpointBefore(second.id(), second.attempt()).orElseThrow();
    assertThat(last.attempt()).isEqualTo(1);
    assertThat(last.stateJson()).isEqualTo("{\"next\":20}");
    assertThat(last.saves()).isEqualTo(2);
    assertThat(last.workerId()).isEqualTo("w1");

    assertThat(resume.saveCheckpoint(lease(second), "w2", "{\"next\":30}")).isPresent();
    Instance third = nextAttempt(second, "w3");
    assertThat(resume.lastCheckpointBefore(third.id(), third.attempt()))
        .hasValueSatisfying(c -> assertThat(c.stateJson()).isEqualTo("{\"next\":30}"));
    assertThat(s.operator.checkpoints(first.id()))
        .as("history keeps each attempt's last checkpoint")
        .extracting(SavedCheckpoint::attempt, SavedCheckpoint::stateJson)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, "{\"next\":20}"),
            org.assertj.core.groups.Tuple.tuple(2, "{\"next\":30}"));
  }

  @Test
  void an_attempt_that_saved_nothing_leaves_the_earlier_attempts_checkpoint_in_place() {
    Instance first = s.claimOne(s.newTask("cp-skip"), "2026-11-29", "w1");
    resume.saveCheckpoint(lease(first), "w1", "{\"page\":4}");
    Instance second = nextAttempt(first, "w2");
    Instance third = nextAttempt(second, "w3");

    assertThat(resume.lastCheckpointBefore(third.id(), third.attempt()))
        .hasValueSatisfying(c -> assertThat(c.attempt()).isEqualTo(1));
  }

  @Test
  void a_checkpoint_renews_the_lease_like_a_heartbeat() {
    Instance claimed = s.claimOne(s.newTask("cp-lease"), "2026-11-29", "w1");
    Instant before = s.operator.find(claimed.id()).orElseThrow().leaseUntil();

    Instant savedAt = resume.saveCheckpoint(lease(claimed), "w1", "{}").orElseThrow();

    Instance after = s.operator.find(claimed.id()).orElseThrow();
    assertThat(after.leaseUntil()).isAfter(before).isEqualTo(savedAt.plus(claimed.timeout()));
  }

  @Test
  void a_zombies_checkpoint_is_refused_and_never_reaches_the_next_attempt() {
    Instance zombie = s.claimOne(s.newTask("cp-zombie"), "2026-11-29", "w1");
    resume.saveCheckpoint(lease(zombie), "w1", "{\"by\":\"attempt 1, on time\"}");
    Instance second = nextAttempt(zombie, "w2");
    resume.saveCheckpoint(lease(second), "w2", "{\"by\":\"attempt 2\"}");
    Instant leaseOfSecond = s.operator.find(second.id()).orElseThrow().leaseUntil();

    assertThat(resume.saveCheckpoint(lease(zombie), "w1", "{\"by\":\"attempt 1, late\"}"))
        .as("the zombie's late checkpoint")
        .isEmpty();
    assertThat(resume.saveCheckpoint(lease(second), "w1", "{\"by\":\"another worker\"}"))
        .as("the right attempt from the wrong worker")
        .isEmpty();
    assertThat(s.operator.find(second.id()).orElseThrow().leaseUntil())
        .as("the refused writes renewed no lease")
        .isEqualTo(leaseOfSecond);

    Instance third = nextAttempt(second, "w3");
    assertThat(resume.lastCheckpointBefore(third.id(), third.attempt()))
        .hasValueSatisfying(c -> assertThat(c.stateJson()).isEqualTo("{\"by\":\"attempt 2\"}"));
    assertThat(s.operator.checkpoints(zombie.id()))
        .extracting(SavedCheckpoint::stateJson)
        .doesNotContain("{\"by\":\"attempt 1, late\"}", "{\"by\":\"another worker\"}");
  }

  @Test
  void a_finished_instance_takes_no_checkpoint() {
    Instance claimed = s.claimOne(s.newTask("cp-ended"), "2026-11-29", "w1");
    s.leases.complete(lease(claimed), Outcome.success("done", false, null), "w1");

    assertThat(resume.saveCheckpoint(lease(claimed), "w1", "{}")).isEmpty();
    assertThat(s.operator.checkpoints(claimed.id())).isEmpty();
  }

  @Test
  void a_zombie_racing_its_successor_gets_every_checkpoint_refused() throws Exception {
    Instance zombie = s.claimOne(s.newTask("cp-race"), "2026-11-29", "w1");
    Instance holder = nextAttempt(zombie, "w2");
    AtomicInteger n = new AtomicInteger();

    List<String> outcomes =
        Stores.race(
            RACERS,
            () -> {
              int i = n.getAndIncrement();
              Instance as = i % 2 == 0 ? zombie : holder;
              boolean saved =
                  resume.saveCheckpoint(lease(as), as.workerId(), "{\"i\":" + i + "}").isPresent();
              return "attempt " + as.attempt() + (saved ? " saved" : " refused");
            });

    assertThat(outcomes)
        .containsOnly("attempt 1 refused", "attempt 2 saved")
        .filteredOn("attempt 2 saved"::equals)
        .hasSize(RACERS / 2);
    assertThat(s.operator.checkpoints(zombie.id()))
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.attempt()).isEqualTo(2);
              assertThat(c.saves()).isEqualTo(RACERS / 2);
            });
  }

  @Test
  void bad_checkpoints_name_the_problem_and_write_nothing() {
    Instance claimed = s.claimOne(s.newTask("cp-bad"), "2026-11-29", "w1");
    String big = "{\"x\":\"" + "é".repeat(ResumeRules.MAX_CHECKPOINT_BYTES / 2) + "\"}";

    assertThatThrownBy(() -> resume.saveCheckpoint(lease(claimed), "w1", "[1,2]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("checkpoint state must be a JSON object");
    assertThatThrownBy(() -> resume.saveCheckpoint(lease(claimed), "w1", "{\"a\":"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("checkpoint state is not JSON");
    assertThatThrownBy(() -> resume.saveCheckpoint(lease(claimed), "w1", big))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is 65544 bytes of UTF-8, more than the 65536 a checkpoint holds");
    assertThat(s.operator.checkpoints(claimed.id())).isEmpty();
  }

  @Test
  void an_effect_recorded_as_done_is_not_started_again_by_this_or_a_later_attempt() {
    Instance first = s.claimOne(s.newTask("fx-done"), "2026-11-29", "w1");

    assertThat(resume.startEffect(lease(first), "w1", "post"))
        .isEqualTo(new EffectStart.Started(false));
    assertThat(resume.recordEffect(lease(first), "w1", "post", "msg-17")).isTrue();
    assertThat(resume.startEffect(lease(first), "w1", "post"))
        .isInstanceOfSatisfying(
            EffectStart.AlreadyDone.class,
            d -> assertThat(d.record().result()).isEqualTo("msg-17"));

    Instance second = nextAttempt(first, "w2");
    assertThat(resume.startEffect(lease(second), "w2", "post"))
        .isInstanceOfSatisfying(
            EffectStart.AlreadyDone.class,
            d -> {
              assertThat(d.record().attempt()).isEqualTo(1);
              assertThat(d.record().result()).isEqualTo("msg-17");
            });
    assertThat(resume.startEffect(lease(second), "w2", "email:ops@example.com"))
        .as("another key is another effect")
        .isEqualTo(new EffectStart.Started(false));
  }

  @Test
  void an_effect_started_and_never_recorded_is_in_doubt_for_the_next_attempt() {
    Instance first = s.claimOne(s.newTask("fx-doubt"), "2026-11-29", "w1");
    assertThat(resume.startEffect(lease(first), "w1", "charge"))
        .isEqualTo(new EffectStart.Started(false));
    // The worker dies here: the external call may have happened, the record was never written.
    Instance second = nextAttempt(first, "w2");

    assertThat(resume.startEffect(lease(second), "w2", "charge"))
        .isEqualTo(new EffectStart.Started(true));
    assertThat(resume.recordEffect(lease(second), "w2", "charge", null)).isTrue();
    assertThat(s.operator.effects(first.id()))
        .extracting(EffectRecord::attempt, EffectRecord::done, EffectRecord::workerId)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, false, "w1"),
            org.assertj.core.groups.Tuple.tuple(2, true, "w2"));
  }

  @Test
  void a_zombie_neither_starts_nor_records_an_effect() {
    Instance zombie = s.claimOne(s.newTask("fx-zombie"), "2026-11-29", "w1");
    assertThat(resume.startEffect(lease(zombie), "w1", "post"))
        .isEqualTo(new EffectStart.Started(false));
    Instance second = nextAttempt(zombie, "w2");

    assertThat(resume.recordEffect(lease(zombie), "w1", "post", "late"))
        .as("its effect returned after the takeover")
        .isFalse();
    assertThat(resume.startEffect(lease(zombie), "w1", "other"))
        .isInstanceOf(EffectStart.Fenced.class);
    assertThat(resume.startEffect(lease(second), "w2", "post"))
        .isEqualTo(new EffectStart.Started(true));
    assertThat(s.operator.effects(zombie.id()))
        .noneMatch(e -> e.attempt() == 1 && e.done())
        .noneMatch(e -> e.key().equals("other"));
  }

  @Test
  void zombies_and_the_holder_racing_on_one_effect_leave_only_the_holders_records()
      throws Exception {
    Instance zombie = s.claimOne(s.newTask("fx-race"), "2026-11-29", "w1");
    Instance holder = nextAttempt(zombie, "w2");
    AtomicInteger n = new AtomicInteger();

    List<Boolean> recorded =
        Stores.race(
            RACERS,
            () -> {
              Instance as = n.getAndIncrement() % 2 == 0 ? zombie : holder;
              EffectStart start = resume.startEffect(lease(as), as.workerId(), "post");
              if (!(start instanceof EffectStart.Started)) {
                return false;
              }
              return resume.recordEffect(lease(as), as.workerId(), "post", "by " + as.attempt());
            });

    assertThat(recorded).contains(true);
    assertThat(s.operator.effects(zombie.id()))
        .allSatisfy(e -> assertThat(e.attempt()).isEqualTo(2))
        .filteredOn(EffectRecord::done)
        .singleElement()
        .satisfies(e -> assertThat(e.result()).isEqualTo("by 2"));
  }

  @Test
  void bad_effect_keys_and_results_name_the_problem_and_write_nothing() {
    Instance claimed = s.claimOne(s.newTask("fx-bad"), "2026-11-29", "w1");

    assertThatThrownBy(() -> resume.startEffect(lease(claimed), "w1", "post digest"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("effect key 'post digest' must match " + ResumeRules.EFFECT_KEY_PATTERN);
    resume.startEffect(lease(claimed), "w1", "post");
    assertThatThrownBy(() -> resume.recordEffect(lease(claimed), "w1", "post", "r".repeat(4097)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "result of effect 'post' is 4097 bytes of UTF-8, more than the 4096 an effect's result"
                + " holds");
    assertThat(s.operator.effects(claimed.id()))
        .singleElement()
        .satisfies(e -> assertThat(e.done()).isFalse());
  }

  @Test
  void a_plain_rerun_keeps_checkpoints_and_effects_and_a_rerun_from_scratch_discards_them() {
    String task = s.newTask("fx-rerun");
    Instance first = s.claimOne(task, "2026-11-29", "w1");
    resume.saveCheckpoint(lease(first), "w1", "{\"next\":3}");
    resume.startEffect(lease(first), "w1", "post");
    resume.recordEffect(lease(first), "w1", "post", "msg-1");
    resume.startEffect(lease(first), "w1", "email");
    s.leases.complete(lease(first), Outcome.success("ok", false, null), "w1");

    Instance kept =
        s.operator
            .rerun(s.operator.find(first.id()).orElseThrow(), "op", "re-run requested")
            .orElseThrow();
    assertThat(s.operator.checkpoints(kept.id())).hasSize(1);
    assertThat(s.operator.effects(kept.id())).hasSize(2);
    Instance second = s.leases.claim(List.of(kept.id()), "w2").get(0);
    assertThat(resume.lastCheckpointBefore(second.id(), second.attempt())).isPresent();
    assertThat(resume.startEffect(lease(second), "w2", "post"))
        .isInstanceOf(EffectStart.AlreadyDone.class);
    s.leases.complete(lease(second), Outcome.success("ok", false, null), "w2");

    Instance fresh =
        s.operator
            .rerun(
                s.operator.find(first.id()).orElseThrow(),
                "op",
                "re-run requested",
                RerunMode.FROM_SCRATCH)
            .orElseThrow();

    assertThat(s.operator.checkpoints(fresh.id())).isEmpty();
    assertThat(s.operator.effects(fresh.id())).isEmpty();
    assertThat(s.operator.events(fresh.id()))
        .last()
        .satisfies(
            e ->
                assertThat(e.reason())
                    .isEqualTo(
                        "re-run requested; from scratch: discarded 1 checkpoint and 2 effects"
                            + " (email, post)"));
    Instance third = s.leases.claim(List.of(fresh.id()), "w3").get(0);
    assertThat(resume.lastCheckpointBefore(third.id(), third.attempt())).isEmpty();
    assertThat(resume.startEffect(lease(third), "w3", "post"))
        .isEqualTo(new EffectStart.Started(false));
  }

  @Test
  void archiving_moves_checkpoints_and_effects_to_the_history_with_their_instance() {
    String task = s.newTask("fx-archive");
    Instance claimed = s.claimOne(task, "2026-11-29", "w1");
    resume.saveCheckpoint(lease(claimed), "w1", "{\"next\":1}");
    resume.startEffect(lease(claimed), "w1", "post");
    resume.recordEffect(lease(claimed), "w1", "post", "msg");
    s.leases.complete(lease(claimed), Outcome.success("ok", false, null), "w1");
    ArchiveStore archive = new ArchiveStore(s.db.dsl());

    // Other tests' finished instances are archived too; this one must be among them.
    Fence retryLeader = new EpochStore(s.db.dsl()).begin("retry", "resume-test");
    assertThat(archive.archiveFinished(Duration.ZERO, 1000, retryLeader)).contains(claimed.id());

    assertThat(s.operator.checkpoints(claimed.id())).isEmpty();
    assertThat(s.operator.effects(claimed.id())).isEmpty();
    var dsl = s.db.dsl();
    assertThat(
            dsl.fetchCount(
                dev.carillon.store.jooq.Tables.INSTANCE_CHECKPOINT_HISTORY,
                dev.carillon.store.jooq.Tables.INSTANCE_CHECKPOINT_HISTORY.INSTANCE_ID.eq(
                    claimed.id())))
        .isEqualTo(1);
    assertThat(
            dsl.fetchCount(
                dev.carillon.store.jooq.Tables.INSTANCE_EFFECT_HISTORY,
                dev.carillon.store.jooq.Tables.INSTANCE_EFFECT_HISTORY.INSTANCE_ID.eq(
                    claimed.id())))
        .isEqualTo(1);
  }
}
