package dev.carillon.store;

import static dev.carillon.model.instance.InstanceStatus.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.instance.IllegalTransitionException;
import dev.carillon.model.instance.Instance;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The one compare-and-set every single-instance change goes through. */
class CompareAndSetTest {
  private static Stores s;

  @BeforeAll
  static void open() {
    s = Stores.fresh("store_cas");
  }

  @AfterAll
  static void close() {
    s.close();
  }

  @Test
  void an_illegal_transition_throws_and_leaves_the_row_untouched() {
    String task = s.newTask("illegal");
    Instance pending = s.newPending(task, "2026-11-29");
    assertThatThrownBy(
            () ->
                CompareAndSet.move(
                    s.db.dsl(),
                    pending.id(),
                    PENDING,
                    null,
                    SUCCESS,
                    "t",
                    "x",
                    CompareAndSet.Changes.NONE))
        .isInstanceOf(IllegalTransitionException.class)
        .hasMessageContaining("PENDING")
        .hasMessageContaining("SUCCESS");
    assertThat(s.operator.find(pending.id()).orElseThrow()).isEqualTo(pending);
    assertThat(s.operator.events(pending.id())).hasSize(1);
  }

  @Test
  void a_compare_and_set_from_the_wrong_status_changes_nothing() {
    String task = s.newTask("wrong-from");
    Instance pending = s.newPending(task, "2026-11-29");
    assertThat(
            CompareAndSet.move(
                s.db.dsl(),
                pending.id(),
                RETRY_WAIT,
                null,
                CANCELLED,
                "op",
                "x",
                CompareAndSet.Changes.NONE))
        .isEmpty();
    assertThat(s.operator.find(pending.id()).orElseThrow().status()).isEqualTo(PENDING);
    Instance cancelled =
        CompareAndSet.move(
                s.db.dsl(),
                pending.id(),
                PENDING,
                null,
                CANCELLED,
                "op",
                "by operator",
                CompareAndSet.Changes.NONE)
            .orElseThrow();
    assertThat(cancelled.finishedAt()).isNotNull();
    assertThat(cancelled).isEqualTo(s.operator.find(pending.id()).orElseThrow());
  }

  @Test
  void a_compare_and_set_with_a_stale_attempt_changes_nothing() {
    String task = s.newTask("stale-attempt");
    Instance running = s.claimOne(task, "2026-11-29", "w1");
    int eventsBefore = s.operator.events(running.id()).size();
    assertThat(
            CompareAndSet.move(
                s.db.dsl(),
                running.id(),
                RUNNING,
                running.attempt() + 1,
                PENDING,
                "w1",
                "x",
                CompareAndSet.Changes.NONE))
        .isEmpty();
    assertThat(s.operator.find(running.id()).orElseThrow()).isEqualTo(running);
    assertThat(s.operator.events(running.id())).hasSize(eventsBefore);
  }
}
