package dev.carillon.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.faults.Invariants.Check;
import dev.carillon.faults.Invariants.EffectCallRow;
import dev.carillon.faults.Invariants.EffectRecordRow;
import dev.carillon.faults.Invariants.EffectVerdict;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The fault suite's effect checks, each shown to fail on the violation it is there to catch, so
 * that a pass in the suite means something.
 */
class InvariantsEffectsTest {
  private final Instant t0 = Instant.now();

  private Instant at(long millis) {
    return t0.plusMillis(millis);
  }

  private static Check check(EffectVerdict v, String nameStart) {
    return v.checks().stream()
        .filter(c -> c.name().startsWith(nameStart))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void effects_called_once_per_window_pass_every_check() {
    EffectVerdict v =
        Invariants.effectChecks(
            List.of(
                new EffectCallRow("f-1/a", 1, "worker-1", false, true, at(0)),
                new EffectCallRow("f-1/b", 2, "worker-2", false, true, at(10))),
            List.of(
                new EffectRecordRow("f-1/a", 1, "worker-1", at(-5), at(5)),
                new EffectRecordRow("f-1/b", 2, "worker-2", at(5), at(15))),
            new FaultLog());

    assertThat(v.checks()).allSatisfy(c -> assertThat(c.ok()).as(c.toString()).isTrue());
    assertThat(v.effects()).isEqualTo(new Invariants.Effects(2, 2, 0));
  }

  @Test
  void an_effect_applied_twice_fails_and_no_effect_at_all_proves_nothing() {
    EffectVerdict twice =
        Invariants.effectChecks(
            List.of(
                new EffectCallRow("f-1/a", 1, "worker-1", false, true, at(0)),
                new EffectCallRow("f-1/a", 2, "worker-2", true, true, at(10))),
            List.of(),
            new FaultLog());
    assertThat(check(twice, "no window's effect executed twice").ok()).isFalse();
    assertThat(check(twice, "no window's effect executed twice").detail())
        .contains("1 applied twice; e.g. [f-1/a applied x2]");

    EffectVerdict none = Invariants.effectChecks(List.of(), List.of(), new FaultLog());
    assertThat(check(none, "no window's effect executed twice").ok()).isFalse();
  }

  @Test
  void a_repeated_call_needs_a_kill_or_freeze_of_a_worker_that_called_it() {
    List<EffectCallRow> calls =
        List.of(
            new EffectCallRow("f-1/a", 1, "worker-1", false, true, at(-500)),
            new EffectCallRow("f-1/a", 2, "worker-2", true, false, at(2000)));
    FaultLog otherWorker = new FaultLog();
    otherWorker.add(FaultLog.Kind.KILL_WORKER, "worker-3", "pid 1");
    FaultLog caller = new FaultLog();
    caller.add(FaultLog.Kind.KILL_WORKER, "worker-1", "pid 2");

    assertThat(check(Invariants.effectChecks(calls, List.of(), otherWorker), "every repeated").ok())
        .isFalse();
    EffectVerdict explained = Invariants.effectChecks(calls, List.of(), caller);
    assertThat(check(explained, "every repeated").ok()).isTrue();
    assertThat(check(explained, "no window's effect executed twice").ok()).isTrue();
    assertThat(explained.effects()).isEqualTo(new Invariants.Effects(1, 2, 1));
  }

  @Test
  void a_repeat_is_explained_by_a_crash_after_the_first_callers_claim_though_before_its_call() {
    List<EffectCallRow> calls =
        List.of(
            new EffectCallRow("f-1/a", 1, "worker-1", false, true, at(8_000)),
            new EffectCallRow("f-1/a", 2, "worker-2", true, false, at(14_000)));
    FaultLog crash = new FaultLog();
    crash.add(at(1_000), FaultLog.Kind.POSTGRES_CRASH, "postgres", "SIGKILL");
    crash.add(at(6_000), FaultLog.Kind.POSTGRES_STARTED, "postgres", "up");

    Check withoutClaims = check(Invariants.effectChecks(calls, List.of(), crash), "every repeated");
    assertThat(withoutClaims.ok()).as("the crash ended 2 s before the first call").isFalse();
    assertThat(withoutClaims.detail()).contains("POSTGRES_CRASH postgres");
    Map<String, Instant> claims =
        Map.of(
            Invariants.claimKey("f-1/a", 1, "worker-1"), at(100),
            Invariants.claimKey("f-1/a", 2, "worker-2"), at(13_000));
    assertThat(
            check(Invariants.effectChecks(calls, List.of(), crash, claims), "every repeated").ok())
        .as("worker-1's lease began at its claim, before the crash")
        .isTrue();
  }

  @Test
  void an_attempt_that_starts_an_effect_after_another_recorded_it_done_fails() {
    EffectVerdict v =
        Invariants.effectChecks(
            List.of(new EffectCallRow("f-1/a", 1, "worker-1", false, true, at(0))),
            List.of(
                new EffectRecordRow("f-1/a", 1, "worker-1", at(-5), at(5)),
                new EffectRecordRow("f-1/a", 2, "worker-2", at(50), null)),
            new FaultLog());

    Check c = check(v, "once never started");
    assertThat(c.ok()).isFalse();
    assertThat(c.detail()).contains("attempt 2 started at").contains("after attempt 1 recorded it");
  }

  @Test
  void a_zombie_frozen_before_its_call_is_explained_by_its_freeze_until_the_resume() {
    FaultLog log = new FaultLog();
    log.add(FaultLog.Kind.FREEZE_WORKER, "worker-1", "3 leases held");
    log.add(FaultLog.Kind.RESUME_WORKER, "worker-1", "SIGCONT");
    // Both calls come after the freeze began: the successor's, then the zombie's after SIGCONT.
    Instant late = Instant.now().plusSeconds(30);
    List<EffectCallRow> calls =
        List.of(
            new EffectCallRow("f-1/a", 2, "worker-2", true, true, late),
            new EffectCallRow("f-1/a", 1, "worker-1", false, false, late.plusSeconds(1)));

    assertThat(check(Invariants.effectChecks(calls, List.of(), log), "every repeated").ok())
        .as("the resume was logged before the calls: the freeze is over, nothing explains them")
        .isFalse();
    FaultLog stillFrozen = new FaultLog();
    stillFrozen.add(FaultLog.Kind.FREEZE_WORKER, "worker-1", "3 leases held");
    assertThat(check(Invariants.effectChecks(calls, List.of(), stillFrozen), "every repeated").ok())
        .isTrue();
  }
}
