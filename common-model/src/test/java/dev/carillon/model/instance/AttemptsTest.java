package dev.carillon.model.instance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AttemptsTest {
  private static final Instant T0 = Instant.parse("2026-03-29T08:00:00Z");
  private final List<InstanceEvent> events = new ArrayList<>();

  private void event(
      InstanceEvent.Kind kind,
      InstanceStatus from,
      InstanceStatus to,
      Integer attempt,
      String actor,
      String reason,
      int second) {
    events.add(
        new InstanceEvent(
            events.size() + 1,
            7L,
            "t",
            "w",
            kind,
            from,
            to,
            attempt,
            actor,
            reason,
            T0.plusSeconds(second)));
  }

  private void move(
      InstanceStatus from,
      InstanceStatus to,
      Integer attempt,
      String actor,
      String reason,
      int second) {
    event(InstanceEvent.Kind.TRANSITION, from, to, attempt, actor, reason, second);
  }

  @Test
  void each_claim_starts_an_attempt_that_the_next_move_out_of_running_with_its_number_ends() {
    event(InstanceEvent.Kind.CREATED, null, InstanceStatus.PENDING, null, "trigger", null, 0);
    move(InstanceStatus.PENDING, InstanceStatus.RUNNING, 1, "w-1", null, 1);
    move(InstanceStatus.RUNNING, InstanceStatus.FAILED, 1, "w-1", "timeout calling search", 5);
    move(InstanceStatus.FAILED, InstanceStatus.RETRY_WAIT, null, "retry", "retry 1 of 3 in 1m", 6);
    move(InstanceStatus.RETRY_WAIT, InstanceStatus.PENDING, null, "retry", null, 66);
    move(InstanceStatus.PENDING, InstanceStatus.RUNNING, 2, "w-2", null, 67);
    move(InstanceStatus.RUNNING, InstanceStatus.PENDING, 2, "w-2", "worker shutting down", 70);
    move(InstanceStatus.PENDING, InstanceStatus.RUNNING, 3, "w-1", null, 71);

    List<Attempts.Attempt> attempts = Attempts.of(events);

    assertThat(attempts)
        .containsExactly(
            new Attempts.Attempt(
                1,
                "w-1",
                T0.plusSeconds(1),
                T0.plusSeconds(5),
                InstanceStatus.FAILED,
                "timeout calling search"),
            new Attempts.Attempt(
                2,
                "w-2",
                T0.plusSeconds(67),
                T0.plusSeconds(70),
                InstanceStatus.PENDING,
                "worker shutting down"),
            new Attempts.Attempt(3, "w-1", T0.plusSeconds(71), null, null, null));
    assertThat(attempts.get(0).duration(T0.plusSeconds(999))).isEqualTo(Duration.ofSeconds(4));
    assertThat(attempts.get(2).duration(T0.plusSeconds(81)))
        .as("a running attempt counts to now")
        .isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void
      a_timeout_noticed_by_the_retry_service_ends_the_attempt_it_names_and_decisions_are_no_attempts() {
    event(InstanceEvent.Kind.DECISION, null, null, null, "trigger", "window exists", 0);
    move(InstanceStatus.PENDING, InstanceStatus.RUNNING, 4, "w-9", null, 1);
    move(InstanceStatus.RUNNING, InstanceStatus.TIMEOUT, 4, "retry", "lease expired", 40);

    assertThat(Attempts.of(events))
        .singleElement()
        .isEqualTo(
            new Attempts.Attempt(
                4,
                "w-9",
                T0.plusSeconds(1),
                T0.plusSeconds(40),
                InstanceStatus.TIMEOUT,
                "lease expired"));
  }

  @Test
  void an_end_whose_claim_was_archived_away_is_left_out() {
    move(InstanceStatus.RUNNING, InstanceStatus.SUCCESS, 2, "w-1", null, 3);
    assertThat(Attempts.of(events)).isEmpty();
  }
}
