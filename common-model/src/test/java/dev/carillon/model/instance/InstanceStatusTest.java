package dev.carillon.model.instance;

import static dev.carillon.model.instance.InstanceStatus.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class InstanceStatusTest {

  /** The design's picture, written out independently of the enum's own table. */
  private static final Map<InstanceStatus, Set<InstanceStatus>> DESIGN =
      Map.of(
          PENDING, EnumSet.of(RUNNING, CANCELLED, SKIPPED),
          RUNNING, EnumSet.of(SUCCESS, FAILED, TIMEOUT, PENDING, CANCELLED),
          FAILED, EnumSet.of(RETRY_WAIT, DEAD, CANCELLED),
          TIMEOUT, EnumSet.of(RETRY_WAIT, DEAD, CANCELLED),
          RETRY_WAIT, EnumSet.of(PENDING, CANCELLED),
          SUCCESS, EnumSet.of(PENDING),
          DEAD, EnumSet.of(PENDING),
          SKIPPED, EnumSet.of(PENDING),
          CANCELLED, EnumSet.of(PENDING));

  static Stream<Arguments> everyPair() {
    return Arrays.stream(values())
        .flatMap(from -> Arrays.stream(values()).map(to -> Arguments.of(from, to)));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("everyPair")
  void every_pair_is_legal_exactly_when_the_design_allows_it(
      InstanceStatus from, InstanceStatus to) {
    boolean allowed = DESIGN.get(from).contains(to);
    assertThat(from.canTransitionTo(to)).isEqualTo(allowed);
    if (allowed) {
      assertThatCode(() -> from.checkTransition(to)).doesNotThrowAnyException();
    } else {
      assertThatThrownBy(() -> from.checkTransition(to))
          .isInstanceOfSatisfying(
              IllegalTransitionException.class,
              e -> {
                assertThat(e.from()).isEqualTo(from);
                assertThat(e.to()).isEqualTo(to);
              })
          .hasMessageContaining(from.name())
          .hasMessageContaining(to.name());
    }
  }

  @Test
  void no_status_may_stay_in_place() {
    for (InstanceStatus s : values()) {
      assertThat(s.canTransitionTo(s)).as(s.name()).isFalse();
    }
  }

  @Test
  void only_pending_and_skipped_start_an_instance() {
    assertThat(INITIAL).containsExactlyInAnyOrder(PENDING, SKIPPED);
  }

  @Test
  void live_states_are_those_that_still_occupy_their_task() {
    assertThat(LIVE).containsExactlyInAnyOrder(PENDING, RUNNING, RETRY_WAIT, FAILED, TIMEOUT);
    assertThat(FINISHED).doesNotContainAnyElementsOf(LIVE);
    assertThat(EnumSet.copyOf(LIVE)).hasSize(5);
  }

  @Test
  void finished_states_leave_only_by_an_operator_rerun_to_pending() {
    for (InstanceStatus s : FINISHED) {
      assertThat(s.successors()).as(s.name()).containsExactly(PENDING);
    }
  }
}
