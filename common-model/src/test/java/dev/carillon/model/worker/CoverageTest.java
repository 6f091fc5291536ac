package dev.carillon.model.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The words {@code why} and {@code describe} use for an instance that waits for a worker. */
class CoverageTest {
  private static final Instant NOW = Instant.parse("2026-11-29T08:00:00Z");

  private static WorkerPresence worker(
      String id, Set<String> queues, Set<String> handlers, boolean ready, Instant lastSeen) {
    return new WorkerPresence(id, queues, handlers, ready, 1, NOW.minusSeconds(3600), lastSeen);
  }

  private static WorkerPresence worker(String id, Set<String> queues, Set<String> handlers) {
    return worker(id, queues, handlers, true, NOW);
  }

  @Test
  void a_live_ready_worker_with_queue_and_handler_covers_and_nothing_is_said() {
    List<WorkerPresence> ws = List.of(worker("w1", Set.of("gpu"), Set.of("summarize")));
    assertThat(Coverage.covered("gpu", "summarize", ws, NOW)).isTrue();
    assertThat(Coverage.waitingReason("gpu", "summarize", ws, NOW)).isEmpty();
  }

  @Test
  void each_way_of_not_being_served_is_told_apart() {
    String head = "no worker serves queue gpu with handler summarize";
    assertThat(Coverage.waitingReason("gpu", "summarize", List.of(), NOW))
        .hasValue(head + " (no worker is running)");
    assertThat(
            Coverage.waitingReason(
                "gpu",
                "summarize",
                List.of(worker("w1", Set.of("gpu"), Set.of("summarize"), false, NOW)),
                NOW))
        .hasValue(head + " that is ready (w1 serves it but is not ready)");
    assertThat(
            Coverage.waitingReason(
                "gpu",
                "summarize",
                List.of(
                    worker("w1", Set.of("gpu"), Set.of("noop", "sleep")),
                    worker("w2", Set.of("gpu", "default"), Set.of("digest"))),
                NOW))
        .hasValue(
            head
                + " (queue gpu is served by w1 with handlers noop, sleep; w2 with handlers"
                + " digest)");
    assertThat(
            Coverage.waitingReason(
                "gpu",
                "summarize",
                List.of(worker("w3", Set.of("default"), Set.of("summarize"))),
                NOW))
        .hasValue(head + " (handler summarize is on w3, serving queues default)");
    assertThat(
            Coverage.waitingReason(
                "gpu",
                "summarize",
                List.of(worker("w4", Set.of("default", "cpu"), Set.of("noop"))),
                NOW))
        .hasValue(head + " (running workers serve queues cpu, default)");
  }

  @Test
  void a_worker_not_seen_for_longer_than_the_expiry_counts_as_gone() {
    WorkerPresence stale =
        worker(
            "w1",
            Set.of("gpu"),
            Set.of("summarize"),
            true,
            NOW.minus(WorkerPresence.EXPIRY).minusMillis(1));
    assertThat(Coverage.covered("gpu", "summarize", List.of(stale), NOW)).isFalse();
    assertThat(Coverage.waitingReason("gpu", "summarize", List.of(stale), NOW))
        .hasValue("no worker serves queue gpu with handler summarize (no worker is running)");
    WorkerPresence fresh =
        worker(
            "w1",
            Set.of("gpu"),
            Set.of("summarize"),
            true,
            NOW.minus(WorkerPresence.EXPIRY).plusMillis(1));
    assertThat(Coverage.covered("gpu", "summarize", List.of(fresh), NOW)).isTrue();
  }
}
