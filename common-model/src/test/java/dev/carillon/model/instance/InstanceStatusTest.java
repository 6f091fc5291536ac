package dev.carillon.model.instance;

import static dev.carillon.model.instance.InstanceStatus.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class InstanceStatusTest {

  /** One legal change, with where the picture says so. */
  private record Edge(InstanceStatus from, InstanceStatus to, String source) {}

  /**
   * The picture of DESIGN.md "Instance states" (from the seed's §3.3, 待执行 → 执行中 → 成功 / 失败 → 待补跑 /
   * 超时 → 待补跑, and §3.3's "超过 3 次 … 进入人工介入队列"), written out edge by edge from the picture, not from
   * the enum's table. Where the picture draws the line from RUNNING down to the junction before
   * RETRY_WAIT, it is the "retry policy allows?" line of FAILED and TIMEOUT: the seed has a run
   * reach 待补跑 only through 失败 or 超时. The seed's 待补跑 → 执行中 goes through PENDING in the design (due
   * retries are republished and claimed again).
   */
  private static final List<Edge> PICTURE =
      List.of(
          new Edge(PENDING, RUNNING, "PENDING ──claim──▶ RUNNING"),
          new Edge(RUNNING, SUCCESS, "RUNNING ──▶ SUCCESS"),
          new Edge(RUNNING, FAILED, "├────▶ FAILED"),
          new Edge(RUNNING, TIMEOUT, "└────▶ TIMEOUT (lease expired)"),
          new Edge(FAILED, RETRY_WAIT, "FAILED ──┐ ... RETRY_WAIT ◀ retry policy allows?"),
          new Edge(TIMEOUT, RETRY_WAIT, "TIMEOUT ─┤ ... RETRY_WAIT ◀ retry policy allows?"),
          new Edge(FAILED, DEAD, "retry policy allows? ── no ──▶ DEAD"),
          new Edge(TIMEOUT, DEAD, "retry policy allows? ── no ──▶ DEAD"),
          new Edge(RETRY_WAIT, PENDING, "└──── RETRY_WAIT, up to ▲ PENDING"),
          new Edge(RUNNING, PENDING, "RUNNING ──released on graceful shutdown──▶ PENDING"));

  /**
   * The picture's words rather than its arrows: "CANCELLED (by an operator)", which stops an
   * instance that has not finished, and "DEAD (manual queue)", from which an operator re-runs it. A
   * re-run of the other finished states (SUCCESS, SKIPPED, CANCELLED) is what DESIGN.md asks where
   * the picture is silent: what a user of Airflow or Temporal expects (clear and run a window
   * again).
   */
  private static final List<Edge> OPERATOR =
      List.of(
          new Edge(PENDING, CANCELLED, "CANCELLED (by an operator)"),
          new Edge(RUNNING, CANCELLED, "CANCELLED (by an operator)"),
          new Edge(FAILED, CANCELLED, "CANCELLED (by an operator)"),
          new Edge(TIMEOUT, CANCELLED, "CANCELLED (by an operator)"),
          new Edge(RETRY_WAIT, CANCELLED, "CANCELLED (by an operator)"),
          new Edge(DEAD, PENDING, "DEAD (manual queue): an operator re-runs it"),
          new Edge(SUCCESS, PENDING, "operator re-run (where the picture is silent)"),
          new Edge(SKIPPED, PENDING, "operator re-run (where the picture is silent)"),
          new Edge(CANCELLED, PENDING, "operator re-run (where the picture is silent)"));

  private static Optional<Edge> legal(InstanceStatus from, InstanceStatus to) {
    return Stream.concat(PICTURE.stream(), OPERATOR.stream())
        .filter(e -> e.from() == from && e.to() == to)
        .findFirst();
  }

  static Stream<Arguments> everyPair() {
    return Arrays.stream(values())
        .flatMap(from -> Arrays.stream(values()).map(to -> Arguments.of(from, to)));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("everyPair")
  void every_pair_is_legal_exactly_when_the_picture_has_it(InstanceStatus from, InstanceStatus to) {
    Optional<Edge> edge = legal(from, to);
    assertThat(from.canTransitionTo(to))
        .as(
            "%s -> %s: %s",
            from,
            to,
            edge.map(e -> "in the picture as '" + e.source() + "'").orElse("not in the picture"))
        .isEqualTo(edge.isPresent());
    if (edge.isPresent()) {
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
  void the_picture_names_every_edge_once() {
    List<Edge> all = Stream.concat(PICTURE.stream(), OPERATOR.stream()).toList();
    assertThat(all.stream().map(e -> e.from() + ">" + e.to())).doesNotHaveDuplicates();
    assertThat(all).hasSize(19);
  }

  @Test
  void skipped_is_only_ever_created_never_reached() {
    for (InstanceStatus s : values()) {
      assertThat(s.canTransitionTo(SKIPPED)).as(s + " -> SKIPPED").isFalse();
    }
    assertThat(INITIAL).contains(SKIPPED);
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
