package dev.carillon.trigger.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.testsupport.Instances;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * When the dispatcher sweeps again at once: only for a full batch of never-dispatched rows that
 * Kafka took whole. The fault suite's first run with chained sweeps showed why republished rows
 * must not chain: after a Kafka outage the workers were busy, rows published 30 s earlier were
 * still PENDING, and the sweep published about 121,000 messages for a backlog of about 34,000.
 */
class SweepAgainTest {
  private static final Instant T = Instant.parse("2026-12-02T05:00:00Z");

  @Test
  void a_full_batch_of_never_dispatched_rows_that_kafka_took_sweeps_again() {
    assertThat(Dispatcher.sweepAgain(batch(Dispatcher.BATCH, 0), Dispatcher.BATCH)).isTrue();
  }

  @Test
  void a_partial_batch_means_the_backlog_is_out() {
    assertThat(Dispatcher.sweepAgain(batch(Dispatcher.BATCH - 1, 0), Dispatcher.BATCH - 1))
        .isFalse();
    assertThat(Dispatcher.sweepAgain(List.of(), 0)).isFalse();
  }

  @Test
  void a_batch_kafka_did_not_take_whole_waits_for_the_next_interval() {
    assertThat(Dispatcher.sweepAgain(batch(Dispatcher.BATCH, 0), Dispatcher.BATCH - 1)).isFalse();
  }

  @Test
  void a_batch_ending_in_republished_rows_waits_for_the_next_interval() {
    assertThat(Dispatcher.sweepAgain(batch(Dispatcher.BATCH, 1), Dispatcher.BATCH)).isFalse();
    assertThat(Dispatcher.sweepAgain(batch(Dispatcher.BATCH, Dispatcher.BATCH), Dispatcher.BATCH))
        .isFalse();
  }

  /** {@code size} PENDING rows as the sweep orders them: never dispatched first, then the rest. */
  private static List<Instance> batch(int size, int dispatchedBefore) {
    List<Instance> out = new ArrayList<>();
    for (int n = 0; n < size; n++) {
      out.add(pending(n, n >= size - dispatchedBefore ? T.minusSeconds(90) : null));
    }
    return out;
  }

  private static Instance pending(long id, Instant dispatchedAt) {
    return Instances.of(id, "t", "w" + id, T, T.plusSeconds(60))
        .timeout(Duration.ofMinutes(5))
        .dispatchedAt(dispatchedAt)
        .build();
  }
}
