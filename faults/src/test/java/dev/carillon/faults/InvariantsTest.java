package dev.carillon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.faults.Invariants.CheckpointRow;
import dev.carillon.faults.Invariants.EffectCallRow;
import dev.carillon.faults.Invariants.EffectRecordRow;
import dev.carillon.faults.Invariants.Event;
import dev.carillon.faults.Invariants.LedgerRow;
import dev.carillon.faults.Invariants.Observed;
import dev.carillon.faults.Invariants.Report;
import dev.carillon.faults.Invariants.Row;
import dev.carillon.faults.Invariants.Zombie;
import dev.carillon.model.schedule.CronSchedule;
import dev.carillon.model.schedule.WindowKind;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Each invariant of the fault suite shown to FAIL on a database state doctored to break it (and on
 * a state with no input for it), and all to pass on a consistent one: so that none can pass
 * vacuously. Pure: the state is built here, as {@link Invariants#load} would read it.
 */
class InvariantsTest {
  private static final Instant FROM = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant UP_TO = FROM.plusSeconds(6);
  private static final Duration GRACE = Duration.ofSeconds(30);
  private static final Workload.TaskSpec OK =
      new Workload.TaskSpec(
          "f-ok-0",
          Workload.Kind.OK,
          "0/2 * * * * ?",
          "UTC",
          100,
          0,
          false,
          "{ policy: IMMEDIATE, maxRetries: 3 }",
          3,
          "ALLOW");

  /** A consistent run, built window by window. */
  private static final class World {
    final List<Row> rows = new ArrayList<>();
    final List<Event> events = new ArrayList<>();
    final List<LedgerRow> ledger = new ArrayList<>();
    final List<EffectCallRow> calls = new ArrayList<>();
    final List<EffectRecordRow> records = new ArrayList<>();
    final List<CheckpointRow> checkpoints = new ArrayList<>();
    final FaultLog faults = new FaultLog();
    final List<String> windows = new ArrayList<>();
    final List<Instant> fires = new ArrayList<>();
    private long eventId;

    /**
     * Every window of {@link #OK} in the run: the first lost its lease on worker-2 (killed) and ran
     * again on worker-1 after the retry service's TIMEOUT; the others ran once on worker-1.
     */
    World() {
      for (Instant fire :
          CronSchedule.parse(OK.cron(), ZoneId.of("UTC")).fireTimes(FROM, UP_TO, 100)) {
        fires.add(fire);
        windows.add(WindowKind.EVERY_FIRE.windowOf(fire, ZoneId.of("UTC")).key());
      }
      for (int i = 0; i < windows.size(); i++) {
        long id = i + 1;
        String w = windows.get(i);
        Instant f = fires.get(i);
        event(id, "CREATED", null, "PENDING", null, "trigger-1", f, null);
        if (i == 0) {
          event(id, "TRANSITION", "PENDING", "RUNNING", 1, "worker-2", ms(f, 100), null);
          ledger.add(new LedgerRow(OK.id(), w, 1, "worker-2", ms(f, 200)));
          calls.add(new EffectCallRow(OK.id() + "/" + w, 1, "worker-2", false, true, ms(f, 300)));
          records.add(
              new EffectRecordRow(OK.id() + "/" + w, 1, "worker-2", ms(f, 250), ms(f, 350)));
          faults.add(ms(f, 500), FaultLog.Kind.KILL_WORKER, "worker-2", "pid 1");
          event(
              id,
              "TRANSITION",
              "RUNNING",
              "TIMEOUT",
              1,
              "retry-1",
              ms(f, 11_000),
              "lease expired at " + ms(f, 10_100) + " (worker worker-2)");
          event(id, "TRANSITION", "TIMEOUT", "RETRY_WAIT", 1, "retry-1", ms(f, 11_100), null);
          event(id, "TRANSITION", "RETRY_WAIT", "PENDING", 1, "retry-1", ms(f, 11_200), null);
          event(id, "TRANSITION", "PENDING", "RUNNING", 2, "worker-1", ms(f, 11_300), null);
          ledger.add(new LedgerRow(OK.id(), w, 2, "worker-1", ms(f, 11_400)));
          event(id, "TRANSITION", "RUNNING", "SUCCESS", 2, "worker-1", ms(f, 12_000), null);
          rows.add(newRow(id, w, "SUCCESS", 2, 1, f));
        } else {
          event(id, "TRANSITION", "PENDING", "RUNNING", 1, "worker-1", ms(f, 100), null);
          ledger.add(new LedgerRow(OK.id(), w, 1, "worker-1", ms(f, 200)));
          calls.add(new EffectCallRow(OK.id() + "/" + w, 1, "worker-1", false, true, ms(f, 300)));
          records.add(
              new EffectRecordRow(OK.id() + "/" + w, 1, "worker-1", ms(f, 250), ms(f, 350)));
          event(id, "TRANSITION", "RUNNING", "SUCCESS", 1, "worker-1", ms(f, 1_000), null);
          rows.add(newRow(id, w, "SUCCESS", 1, 0, f));
        }
      }
    }

    void event(
        long instance,
        String kind,
        String from,
        String to,
        Integer attempt,
        String actor,
        Instant at,
        String reason) {
      events.add(new Event(++eventId, instance, kind, from, to, attempt, actor, at, reason));
    }

    Observed observed() {
      return new Observed(
          List.copyOf(ledger),
          List.copyOf(rows),
          List.copyOf(events),
          List.copyOf(calls),
          List.copyOf(records),
          List.copyOf(checkpoints),
          UP_TO.plusSeconds(60));
    }

    Report verdict(List<Zombie> zombies) {
      return Invariants.verdict(observed(), List.of(OK), FROM, UP_TO, faults, zombies, GRACE);
    }

    Report verdict() {
      return verdict(List.of());
    }

    /** The verdict over this world with {@code log} as the run's faults instead of its own. */
    Report verdictWith(FaultLog log) {
      return Invariants.verdict(observed(), List.of(OK), FROM, UP_TO, log, List.of(), GRACE);
    }

    /** Replaces window {@code i}'s row. */
    void row(int i, UnaryOperator<Row> change) {
      rows.set(i, change.apply(rows.get(i)));
    }

    /** Replaces the events matching instance {@code id} and {@code to}. */
    void events(long id, String to, UnaryOperator<Event> change) {
      events.replaceAll(e -> e.instanceId() == id && to.equals(e.to()) ? change.apply(e) : e);
    }
  }

  private static Row newRow(
      long id, String window, String status, int attempt, int retries, Instant f) {
    return new Row(
        id, OK.id(), window, status, attempt, retries, 3, false, f, null, null, f.plusSeconds(12));
  }

  private static Instant ms(Instant t, long millis) {
    return t.plusMillis(millis);
  }

  private static Invariants.Check check(Report r, String nameStart) {
    return r.checks().stream()
        .filter(c -> c.name().startsWith(nameStart))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no check named " + nameStart + ": " + r.checks()));
  }

  private static void assertFails(Report r, String nameStart, String detailMentions) {
    Invariants.Check c = check(r, nameStart);
    assertThat(c.ok()).as(c.toString()).isFalse();
    assertThat(c.detail()).contains(detailMentions);
  }

  @Test
  void a_consistent_run_passes_every_invariant_and_counts_what_it_saw() {
    World w = new World();
    Report r =
        w.verdict(
            List.of(new Zombie("worker-2", ms(FROM, 50), ms(FROM, 12_500), zombie(), "frozen")));

    assertThat(w.windows).hasSize(3);
    assertThat(r.checks()).allSatisfy(c -> assertThat(c.ok()).as(c.toString()).isTrue());
    assertThat(r.checks()).hasSize(15);
    assertThat(check(r, "every SUCCESS has a ledger row").detail())
        .startsWith("3 SUCCESS writes, 0 without");
    assertThat(check(r, "every TIMEOUT came after").detail()).startsWith("1 TIMEOUT writes, 0");
    assertThat(check(r, "every repeated execution").detail()).contains("1 repeated, 0 unexplained");
  }

  private static Set<String> zombie() {
    return Set.of("1#1");
  }

  @Test
  void no_input_fails_every_invariant() {
    Observed empty =
        new Observed(List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), UP_TO);
    Report r =
        Invariants.verdict(
            empty,
            List.of(OK),
            FROM,
            UP_TO,
            new FaultLog(),
            List.of(new Zombie("worker-2", FROM, UP_TO, Set.of(), "frozen")),
            GRACE);

    assertThat(r.checks()).hasSize(15);
    assertThat(r.checks()).allSatisfy(c -> assertThat(c.ok()).as(c.toString()).isFalse());
    assertThat(r.checks())
        .filteredOn(c -> !c.name().startsWith("every window in the run"))
        .allSatisfy(c -> assertThat(c.detail()).as(c.name()).contains("proved nothing"));
  }

  @Test
  void a_run_without_a_single_lost_lease_fails_the_timeout_invariant_as_vacuous() {
    World w = new World();
    w.events.removeIf(e -> e.instanceId() == 1);
    w.ledger.removeIf(l -> l.windowKey().equals(w.windows.get(0)));
    w.rows.remove(0);

    assertFails(w.verdict(), "every TIMEOUT came after", "no TIMEOUT");
  }

  @Test
  void a_missing_or_duplicated_window_row_fails() {
    World missing = new World();
    missing.rows.remove(2);
    assertFails(missing.verdict(), "every window in the run", "1 missing");

    World twice = new World();
    twice.rows.add(twice.rows.get(1));
    assertFails(twice.verdict(), "every window in the run", "1 duplicated");
  }

  @Test
  void a_second_success_write_fails() {
    World w = new World();
    w.event(2, "TRANSITION", "SUCCESS", "SUCCESS", 1, "worker-3", ms(w.fires.get(1), 2_000), null);
    assertFails(w.verdict(), "no window has two SUCCESS", "1 windows with two");
  }

  @Test
  void an_end_with_the_wrong_attempt_or_by_a_stranger_fails_the_fencing_invariant() {
    World wrongAttempt = new World();
    wrongAttempt.events(
        2,
        "SUCCESS",
        e -> new Event(e.id(), 2, e.kind(), e.from(), e.to(), 7, e.actor(), e.at(), e.reason()));
    assertFails(wrongAttempt.verdict(), "no write from a fenced-out", "attempt 7");

    World stranger = new World();
    stranger.events(
        2,
        "SUCCESS",
        e -> new Event(e.id(), 2, e.kind(), e.from(), e.to(), 1, "worker-3", e.at(), e.reason()));
    assertFails(stranger.verdict(), "no write from a fenced-out", "by worker-3");
  }

  @Test
  void a_zombie_checkpoint_after_resume_fails_and_a_freeze_that_lost_no_lease_proves_nothing() {
    World w = new World();
    Instant resumed = ms(FROM, 12_500);
    w.checkpoints.add(new CheckpointRow(1, 1, "worker-2", resumed.plusSeconds(1)));
    assertFails(
        w.verdict(List.of(new Zombie("worker-2", ms(FROM, 50), resumed, zombie(), "frozen"))),
        "zombie worker-2",
        "1 writes after resume");

    World idle = new World();
    assertFails(
        idle.verdict(
            List.of(
                new Zombie(
                    "worker-1", ms(FROM, 50), resumed, Set.of("2#1"), "cut from PostgreSQL"))),
        "zombie worker-1",
        "the fault proved nothing");
  }

  @Test
  void a_row_running_past_its_lease_fails() {
    World w = new World();
    Instant longAgo = UP_TO.minusSeconds(300);
    w.row(
        1,
        r ->
            new Row(
                r.id(),
                r.taskId(),
                r.windowKey(),
                "RUNNING",
                r.attempt(),
                r.retryCount(),
                r.maxRetry(),
                false,
                r.scheduledAt(),
                longAgo,
                null,
                longAgo));
    assertFails(w.verdict(), "nothing PENDING/RUNNING/RETRY_WAIT", "1 stuck");
  }

  @Test
  void an_ok_task_that_ended_dead_fails_the_policy_invariant() {
    World w = new World();
    w.row(
        1,
        r ->
            new Row(
                r.id(),
                r.taskId(),
                r.windowKey(),
                "DEAD",
                r.attempt(),
                3,
                3,
                false,
                r.scheduledAt(),
                null,
                null,
                r.updatedAt()));
    assertFails(w.verdict(), "every failed instance ended", "expected SUCCESS, was DEAD");
  }

  @Test
  void an_attempt_in_the_ledger_twice_fails() {
    World w = new World();
    w.ledger.add(w.ledger.get(2));
    assertFails(w.verdict(), "no attempt was executed twice", "1 attempts executed twice");
  }

  @Test
  void an_execution_without_a_claim_fails() {
    World w = new World();
    w.ledger.add(new LedgerRow(OK.id(), w.windows.get(2), 1, "worker-3", ms(w.fires.get(2), 300)));
    assertFails(w.verdict(), "every execution in the ledger holds a claim", "1 without a claim");
  }

  @Test
  void a_repeated_execution_without_a_kill_or_freeze_fails() {
    World w = new World();
    FaultLog none = new FaultLog();
    Report r = w.verdictWith(none);
    assertFails(r, "every repeated execution", "1 unexplained");
  }

  @Test
  void a_repeat_is_explained_by_a_partition_of_its_worker_from_postgres_not_by_one_of_a_leader() {
    World w = new World();
    Instant f = w.fires.get(0);
    FaultLog cut = new FaultLog();
    cut.add(ms(f, 150), FaultLog.Kind.PARTITION_WORKER_PG, "worker-2", "from PostgreSQL");
    cut.add(ms(f, 15_150), FaultLog.Kind.HEAL_PARTITION, "worker-2", "PostgreSQL reachable");
    assertThat(check(w.verdictWith(cut), "every repeated execution").ok()).isTrue();

    FaultLog leader = new FaultLog();
    leader.add(ms(f, 150), FaultLog.Kind.PARTITION_TRIGGER_ZK, "worker-2", "from ZooKeeper");
    assertFails(w.verdictWith(leader), "every repeated execution", "1 unexplained");
  }

  @Test
  void a_window_created_or_claimed_before_its_fire_time_fails() {
    World created = new World();
    Instant f = created.fires.get(1);
    created.events(
        2,
        "PENDING",
        e ->
            e.from() == null
                ? new Event(
                    e.id(), 2, e.kind(), null, e.to(), null, e.actor(), f.minusSeconds(30), null)
                : e);
    assertFails(created.verdict(), "no window created or started before", "1 early");

    World claimed = new World();
    claimed.events(
        2,
        "RUNNING",
        e ->
            new Event(e.id(), 2, e.kind(), e.from(), e.to(), 1, e.actor(), f.minusMillis(1), null));
    assertFails(claimed.verdict(), "no window created or started before", "claimed by worker-1");
  }

  @Test
  void a_trigger_set_to_create_ahead_may_create_within_its_setting_and_must_have_done_so() {
    World ahead = new World();
    ahead.faults.add(FROM, FaultLog.Kind.CREATE_AHEAD, "trigger-1", "300ms");
    createdBy(ahead, "trigger:trigger-1", 250);
    assertThat(check(ahead.verdict(), "no window created or started before").ok()).isTrue();

    World tooEarly = new World();
    tooEarly.faults.add(FROM, FaultLog.Kind.CREATE_AHEAD, "trigger-1", "300ms");
    createdBy(tooEarly, "trigger:trigger-1", 250);
    tooEarly.events.replaceAll(
        e ->
            e.from() == null && e.instanceId() == 2
                ? new Event(
                    e.id(),
                    2,
                    e.kind(),
                    null,
                    e.to(),
                    null,
                    e.actor(),
                    e.at().minusMillis(200),
                    null)
                : e);
    assertFails(tooEarly.verdict(), "no window created or started before", "1 early");

    World otherTrigger = new World();
    otherTrigger.faults.add(FROM, FaultLog.Kind.CREATE_AHEAD, "trigger-1", "300ms");
    createdBy(otherTrigger, "trigger:trigger-2", 250);
    assertFails(
        otherTrigger.verdict(),
        "no window created or started before",
        "a trigger set to create ahead created no window ahead");

    World never = new World();
    never.faults.add(FROM, FaultLog.Kind.CREATE_AHEAD, "trigger-1", "300ms");
    createdBy(never, "trigger:trigger-1", 0);
    assertFails(
        never.verdict(),
        "no window created or started before",
        "a trigger set to create ahead created no window ahead");
  }

  @Test
  void a_worker_set_to_claim_ahead_may_claim_within_its_setting_but_never_start_early() {
    // worker-1 claims windows 2.. of the world; claimed 30 ms before their fire times.
    World ahead = new World();
    ahead.faults.add(FROM, FaultLog.Kind.CLAIM_AHEAD, "worker-1", "50ms");
    claimedBy(ahead, "worker-1", 30);
    Invariants.Check ok = check(ahead.verdict(), "no window created or started before");
    assertThat(ok.ok()).as(ok.detail()).isTrue();
    assertThat(ok.detail()).contains("claimed ahead {worker-1=");

    World overSetting = new World();
    overSetting.faults.add(FROM, FaultLog.Kind.CLAIM_AHEAD, "worker-1", "50ms");
    claimedBy(overSetting, "worker-1", 80);
    assertFails(
        overSetting.verdict(), "no window created or started before", "claimed by worker-1");

    // The same claims by a worker without the setting are early.
    World notSet = new World();
    claimedBy(notSet, "worker-1", 30);
    assertFails(notSet.verdict(), "no window created or started before", "claimed by worker-1");

    // Claimed ahead, and its handler's first write came before the fire time too.
    World startedEarly = new World();
    startedEarly.faults.add(FROM, FaultLog.Kind.CLAIM_AHEAD, "worker-1", "50ms");
    claimedBy(startedEarly, "worker-1", 30);
    Instant f = startedEarly.fires.get(1);
    startedEarly.ledger.replaceAll(
        l ->
            l.windowKey().equals(startedEarly.windows.get(1))
                ? new LedgerRow(l.taskId(), l.windowKey(), 1, "worker-1", f.minusMillis(20))
                : l);
    assertFails(
        startedEarly.verdict(),
        "no window created or started before",
        "attempt 1 started by worker-1 (its first write at "
            + f.minusMillis(20)
            + "), before its fire time "
            + f);

    World never = new World();
    never.faults.add(FROM, FaultLog.Kind.CLAIM_AHEAD, "worker-1", "50ms");
    assertFails(
        never.verdict(),
        "no window created or started before",
        "a worker set to claim ahead claimed no window ahead");
  }

  @Test
  void a_run_whose_ledger_is_empty_proves_no_start_on_time() {
    World w = new World();
    w.ledger.clear();
    assertFails(w.verdict(), "no window created or started before", "no handler started");
  }

  /** Every first claim of {@code w} by {@code worker}, {@code msEarly} before its fire time. */
  private static void claimedBy(World w, String worker, long msEarly) {
    w.events.replaceAll(
        e ->
            "PENDING".equals(e.from())
                    && "RUNNING".equals(e.to())
                    && Integer.valueOf(1).equals(e.attempt())
                    && worker.equals(e.actor())
                ? new Event(
                    e.id(),
                    e.instanceId(),
                    e.kind(),
                    e.from(),
                    e.to(),
                    1,
                    worker,
                    e.at().minusMillis(100 + msEarly),
                    null)
                : e);
  }

  /** Every creation event of {@code w} by {@code actor}, {@code msEarly} before its fire time. */
  private static void createdBy(World w, String actor, long msEarly) {
    w.events.replaceAll(
        e ->
            e.from() == null
                ? new Event(
                    e.id(),
                    e.instanceId(),
                    e.kind(),
                    null,
                    e.to(),
                    null,
                    actor,
                    e.at().minusMillis(msEarly),
                    null)
                : e);
  }

  @Test
  void a_skewed_trigger_that_created_no_window_proves_nothing() {
    World w = new World();
    w.faults.add(FROM, FaultLog.Kind.CLOCK_SKEW, "trigger-2", "30s fast");
    assertFails(w.verdict(), "no window created or started before", "a skewed trigger created");

    World led = new World();
    led.faults.add(FROM, FaultLog.Kind.CLOCK_SKEW, "trigger-2", "30s fast");
    led.events.replaceAll(
        e ->
            e.from() == null
                ? new Event(
                    e.id(),
                    e.instanceId(),
                    e.kind(),
                    null,
                    e.to(),
                    null,
                    "trigger:trigger-2",
                    e.at(),
                    null)
                : e);
    assertThat(check(led.verdict(), "no window created or started before").ok()).isTrue();
  }

  @Test
  void a_frozen_leader_that_wrote_after_sigcont_or_was_never_deposed_fails() {
    Duration watch = Duration.ofSeconds(10);
    Instant at = FROM;
    Invariants.Check fenced =
        Invariants.frozenLeader(
            new Invariants.FrozenLeader("trigger-1", at, at, 3, 4, 4, 120, 120, watch));
    assertThat(fenced.ok()).as(fenced.toString()).isTrue();

    Invariants.Check wrote =
        Invariants.frozenLeader(
            new Invariants.FrozenLeader("trigger-1", at, at, 3, 4, 4, 120, 121, watch));
    assertThat(wrote.ok()).isFalse();
    assertThat(wrote.detail()).contains("1 written after");

    Invariants.Check notDeposed =
        Invariants.frozenLeader(
            new Invariants.FrozenLeader("trigger-1", at, at, 3, 3, 3, 120, 120, watch));
    assertThat(notDeposed.ok()).isFalse();
    assertThat(notDeposed.detail()).contains("proved nothing");

    Invariants.Check newTerm =
        Invariants.frozenLeader(
            new Invariants.FrozenLeader("trigger-1", at, at, 3, 4, 5, 120, 120, watch));
    assertThat(newTerm.ok()).isFalse();
    assertThat(newTerm.detail()).contains("inconclusive");
  }

  @Test
  void a_failed_attempt_is_put_down_to_the_database_only_when_a_cut_to_its_worker_overlapped_it() {
    Instant t = FROM;
    // Attempt 1 on worker-2 failed retryably at +5 s, attempt 2 on worker-1 non-retryably.
    List<Event> ev =
        List.of(
            new Event(1, 9, "CREATED", null, "PENDING", null, "trigger-1", t, null),
            new Event(2, 9, "TRANSITION", "PENDING", "RUNNING", 1, "worker-2", ms(t, 100), null),
            new Event(
                3, 9, "TRANSITION", "RUNNING", "FAILED", 1, "worker-2", ms(t, 5_000), "57P01"),
            new Event(4, 9, "TRANSITION", "FAILED", "RETRY_WAIT", 1, "retry-1", ms(t, 5_100), null),
            new Event(
                5, 9, "TRANSITION", "RETRY_WAIT", "PENDING", 1, "retry-1", ms(t, 6_000), null),
            new Event(6, 9, "TRANSITION", "PENDING", "RUNNING", 2, "worker-1", ms(t, 6_100), null),
            new Event(7, 9, "TRANSITION", "RUNNING", "FAILED", 2, "worker-1", ms(t, 7_000), "no"));

    FaultLog restart = new FaultLog();
    restart.add(ms(t, 3_000), FaultLog.Kind.POSTGRES_RESTART, "postgres", "fast");
    restart.add(ms(t, 4_500), FaultLog.Kind.POSTGRES_STARTED, "postgres", "up");
    assertThat(Invariants.failuresUnderDatabaseLoss(ev, restart)).isEqualTo(1);

    FaultLog ownPartition = new FaultLog();
    ownPartition.add(ms(t, -10_000), FaultLog.Kind.PARTITION_WORKER_PG, "worker-2", "cut");
    ownPartition.add(ms(t, 500), FaultLog.Kind.HEAL_PARTITION, "worker-2", "healed");
    assertThat(Invariants.failuresUnderDatabaseLoss(ev, ownPartition)).isEqualTo(1);

    FaultLog otherWorker = new FaultLog();
    otherWorker.add(ms(t, 1_000), FaultLog.Kind.PARTITION_WORKER_PG, "worker-3", "cut");
    otherWorker.add(ms(t, 16_000), FaultLog.Kind.HEAL_PARTITION, "worker-3", "healed");
    assertThat(Invariants.failuresUnderDatabaseLoss(ev, otherWorker)).isZero();

    FaultLog before = new FaultLog();
    before.add(ms(t, -9_000), FaultLog.Kind.POSTGRES_CRASH, "postgres", "SIGKILL");
    before.add(ms(t, -4_000), FaultLog.Kind.POSTGRES_STARTED, "postgres", "up");
    assertThat(Invariants.failuresUnderDatabaseLoss(ev, before)).isZero();

    // The last failure is the one the agent meant; a crash over it excuses nothing.
    FaultLog overLast = new FaultLog();
    overLast.add(ms(t, 6_500), FaultLog.Kind.POSTGRES_CRASH, "postgres", "SIGKILL");
    overLast.add(ms(t, 9_000), FaultLog.Kind.POSTGRES_STARTED, "postgres", "up");
    assertThat(Invariants.failuresUnderDatabaseLoss(ev, overLast)).isZero();
  }

  @Test
  void a_postgres_crash_during_the_run_explains_its_repeat_and_one_before_it_does_not() {
    World w = new World();
    Instant f = w.fires.get(0);
    FaultLog during = new FaultLog();
    during.add(ms(f, 2_000), FaultLog.Kind.POSTGRES_CRASH, "postgres", "SIGKILL");
    during.add(ms(f, 9_000), FaultLog.Kind.POSTGRES_STARTED, "postgres", "up");
    assertThat(check(w.verdictWith(during), "every repeated execution").ok()).isTrue();

    FaultLog before = new FaultLog();
    before.add(ms(f, -9_000), FaultLog.Kind.POSTGRES_CRASH, "postgres", "SIGKILL");
    before.add(ms(f, -4_000), FaultLog.Kind.POSTGRES_STARTED, "postgres", "up");
    assertFails(w.verdictWith(before), "every repeated execution", "1 unexplained");
  }

  @Test
  void a_crash_between_the_claim_and_a_late_start_explains_the_repeat_and_the_detail_says_when() {
    World w = new World();
    Instant f = w.fires.get(0);
    // Claimed at f+0.1 s (f is 00:00:02), it waited for a thread and started at f+8 s, after
    // PostgreSQL was back.
    w.ledger.set(0, new LedgerRow(OK.id(), w.windows.get(0), 1, "worker-2", ms(f, 8_000)));
    FaultLog crash = new FaultLog();
    crash.add(ms(f, 1_000), FaultLog.Kind.POSTGRES_CRASH, "postgres", "SIGKILL");
    crash.add(ms(f, 6_000), FaultLog.Kind.POSTGRES_STARTED, "postgres", "up");
    assertThat(check(w.verdictWith(crash), "every repeated execution").ok()).isTrue();

    FaultLog beforeClaim = new FaultLog();
    beforeClaim.add(ms(f, -7_000), FaultLog.Kind.POSTGRES_CRASH, "postgres", "SIGKILL");
    beforeClaim.add(ms(f, -2_000), FaultLog.Kind.POSTGRES_STARTED, "postgres", "up");
    beforeClaim.add(ms(f, 3_000), FaultLog.Kind.KILL_WORKER, "worker-3", "pid 9");
    assertFails(
        w.verdictWith(beforeClaim),
        "every repeated execution",
        "(claimed 00:00:02.100, started 00:00:10.000, lost 00:00:13.000; faults in the minute"
            + " before: POSTGRES_CRASH postgres 23:59:55.000-00:00:00.000, KILL_WORKER worker-3"
            + " 00:00:05.000)");
  }

  @Test
  void a_success_without_its_execution_in_the_ledger_fails() {
    World w = new World();
    w.ledger.removeIf(l -> l.windowKey().equals(w.windows.get(2)));
    assertFails(w.verdict(), "every SUCCESS has a ledger row", "1 without an execution");

    World otherWorker = new World();
    otherWorker.ledger.replaceAll(
        l ->
            l.windowKey().equals(otherWorker.windows.get(0)) && l.attempt() == 2
                ? new LedgerRow(l.taskId(), l.windowKey(), 2, "worker-3", l.startedAt())
                : l);
    assertFails(otherWorker.verdict(), "every SUCCESS has a ledger row", "attempt 2 by worker-1");
  }

  @Test
  void a_timeout_before_its_lease_ran_out_or_without_one_fails() {
    World early = new World();
    Instant f = early.fires.get(0);
    early.events(
        1,
        "TIMEOUT",
        e ->
            new Event(
                e.id(),
                1,
                e.kind(),
                e.from(),
                e.to(),
                1,
                e.actor(),
                e.at(),
                "lease expired at " + ms(f, 11_500) + " (worker worker-2)"));
    assertFails(early.verdict(), "every TIMEOUT came after", "before its lease ran out");

    World unnamed = new World();
    unnamed.events(
        1,
        "TIMEOUT",
        e -> new Event(e.id(), 1, e.kind(), e.from(), e.to(), 1, e.actor(), e.at(), null));
    assertFails(unnamed.verdict(), "every TIMEOUT came after", "no expired lease named");

    World holder = new World();
    holder.events(
        1,
        "TIMEOUT",
        e -> new Event(e.id(), 1, e.kind(), e.from(), e.to(), 1, "worker-2", ms(f, 3_000), null));
    assertFails(holder.verdict(), "every TIMEOUT came after", "before its task timeout");
  }

  @Test
  void a_run_that_called_no_effect_fails_the_effect_invariants() {
    World w = new World();
    w.calls.clear();
    w.records.clear();
    Report r = w.verdict();
    assertFails(r, "no window's effect executed twice", "proved nothing");
    assertFails(r, "once never started", "proved nothing");
    assertFails(r, "every repeated call of an effect", "proved nothing");
  }
}
