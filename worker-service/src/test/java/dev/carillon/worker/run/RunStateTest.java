package dev.carillon.worker.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.instance.ClaimedInstance;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RunStateTest {
  /**
   * The run's picture, written out pair by pair (not derived from the enum): QUEUED → RUNNING, then
   * exactly one end; a waiting run can only lose its lease or be released.
   */
  private static final Set<String> ALLOWED =
      Set.of(
          "QUEUED->RUNNING",
          "QUEUED->LEASE_LOST",
          "QUEUED->RELEASED",
          "RUNNING->COMPLETING",
          "RUNNING->TIMED_OUT",
          "RUNNING->LEASE_LOST",
          "RUNNING->RELEASED");

  static Stream<Arguments> everyPair() {
    List<Arguments> pairs = new ArrayList<>();
    for (RunState from : RunState.values()) {
      for (RunState to : RunState.values()) {
        pairs.add(Arguments.of(from, to));
      }
    }
    return pairs.stream();
  }

  static Run runIn(RunState state) {
    ClaimedInstance claimed =
        new ClaimedInstance(
            7,
            "task",
            "w1",
            Instant.EPOCH,
            Instant.EPOCH.plusSeconds(60),
            Instant.EPOCH,
            1,
            0,
            Duration.ofSeconds(30),
            null);
    Run run = Run.queued(claimed, null, null, 0);
    if (state == RunState.QUEUED) {
      return run;
    }
    if (state != RunState.RUNNING) {
      assertThat(run.move(RunState.QUEUED, RunState.RUNNING)).isTrue();
    }
    RunState via = state == RunState.RUNNING ? RunState.QUEUED : RunState.RUNNING;
    assertThat(run.move(via, state)).isTrue();
    return run;
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("everyPair")
  void a_move_is_allowed_exactly_when_the_picture_has_it(RunState from, RunState to) {
    boolean allowed = ALLOWED.contains(from + "->" + to);
    assertThat(from.canMoveTo(to)).isEqualTo(allowed);
    Run run = runIn(from);
    if (allowed) {
      assertThat(run.move(from, to)).isTrue();
      assertThat(run.state()).isEqualTo(to);
    } else {
      assertThatThrownBy(() -> run.move(from, to))
          .isInstanceOfSatisfying(
              IllegalRunTransitionException.class,
              e -> {
                assertThat(e.from()).isEqualTo(from);
                assertThat(e.to()).isEqualTo(to);
              })
          .hasMessage(
              "illegal run transition " + from + " -> " + to + " (instance 7 (task/w1) attempt 1)");
      assertThat(run.state()).isEqualTo(from);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("states")
  void the_lease_is_kept_until_the_end_is_written_and_a_drain_waits_for_the_agents_own_end(
      RunState state) {
    Set<RunState> holding =
        Set.of(RunState.QUEUED, RunState.RUNNING, RunState.COMPLETING, RunState.TIMED_OUT);
    Set<RunState> active = Set.of(RunState.QUEUED, RunState.RUNNING, RunState.COMPLETING);
    Set<RunState> writing = Set.of(RunState.COMPLETING, RunState.TIMED_OUT);
    assertThat(state.holdsLease()).isEqualTo(holding.contains(state));
    assertThat(state.isActive()).isEqualTo(active.contains(state));
    assertThat(state.writesEnd()).isEqualTo(writing.contains(state));
  }

  static Stream<RunState> states() {
    return Stream.of(RunState.values());
  }
}
