package dev.carillon.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.store.Database;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.FencedException;
import dev.carillon.testsupport.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A leadership term takes its epoch only when ZooKeeper confirms the leadership before and after,
 * keeps it for the term, and gives it up when a write is fenced or the term ends. ZooKeeper's
 * answers are scripted here; {@link LeaderElectionTest} covers {@link LeaderElection#confirm()}.
 */
class LeaderTermTest {
  private Database db;
  private EpochStore epochs;
  private final Deque<Boolean> answers = new ArrayDeque<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private LeaderTerm term;

  @BeforeEach
  void open() {
    db = TestDatabase.fresh("leader_term");
    epochs = new EpochStore(db.dsl());
    term = new LeaderTerm("svc", "me", epochs, () -> answers.isEmpty() || answers.pop(), registry);
  }

  @AfterEach
  void close() {
    db.close();
  }

  @Test
  void no_fence_outside_a_term() {
    assertThatThrownBy(term::fence)
        .isInstanceOf(NotLeaderException.class)
        .hasMessageContaining("not the svc leader");
    assertThat(epochs.current("svc")).isEmpty();
  }

  @Test
  void a_term_takes_one_epoch_on_first_use_and_keeps_it_until_it_ends() {
    term.begin();
    Fence first = term.fence();

    assertThat(term.fence()).isSameAs(first);
    assertThat(epochs.current("svc").orElseThrow().holder()).isEqualTo("me");
    assertThat(registry.get("carillon.leader.epoch").tag("service", "svc").gauge().value())
        .isEqualTo(first.epoch());

    term.end();
    assertThatThrownBy(term::fence).isInstanceOf(NotLeaderException.class);
    assertThat(term.current()).isEmpty();
    term.begin();
    assertThat(term.fence().epoch()).as("a new term, a new epoch").isEqualTo(first.epoch() + 1);
  }

  @Test
  void a_candidate_zookeeper_does_not_confirm_takes_no_epoch() {
    Fence other = epochs.begin("svc", "the real leader");
    term.begin();
    answers.add(false);

    assertThatThrownBy(term::fence)
        .isInstanceOf(NotLeaderException.class)
        .hasMessageContaining("ZooKeeper does not confirm");
    assertThat(epochs.holds(other)).as("the real leader keeps its epoch").isTrue();
  }

  @Test
  void an_epoch_taken_by_a_candidate_deposed_meanwhile_is_not_used() {
    term.begin();
    answers.add(true);
    answers.add(false);

    assertThatThrownBy(term::fence)
        .isInstanceOf(NotLeaderException.class)
        .hasMessageContaining("deposed while taking");
    assertThat(term.current()).isEmpty();
  }

  @Test
  void a_fenced_write_drops_the_fence_and_the_next_round_takes_a_newer_one_if_confirmed() {
    term.begin();
    Fence mine = term.fence();
    Fence successor = epochs.begin("svc", "someone else");

    term.fenced(new FencedException(mine, "tick commit"));
    term.fenced(new FencedException(mine, "dispatch stamp"));

    assertThat(term.fencedWrites()).isEqualTo(2);
    assertThat(registry.get("carillon.leader.fenced").tag("service", "svc").counter().count())
        .isEqualTo(2.0);
    assertThat(term.current()).isEmpty();
    answers.add(false);
    assertThatThrownBy(term::fence).isInstanceOf(NotLeaderException.class);
    assertThat(epochs.holds(successor)).isTrue();
    assertThat(term.fence().epoch())
        .as("confirmed again: the term takes over with a newer epoch")
        .isEqualTo(successor.epoch() + 1);
  }
}
