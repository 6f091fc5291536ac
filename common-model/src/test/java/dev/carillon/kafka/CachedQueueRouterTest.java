package dev.carillon.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Answers reused for their time to live, read again after it, and never more than the bound. */
class CachedQueueRouterTest {
  private static final Duration TTL = Duration.ofSeconds(5);

  private final AtomicLong nanos = new AtomicLong();
  private final List<Set<String>> loads = new ArrayList<>();
  private final Map<String, String> table = new HashMap<>(Map.of("a", "gpu", "b", "cpu"));

  private Map<String, String> load(Set<String> ids) {
    loads.add(Set.copyOf(ids));
    Map<String, String> out = new HashMap<>();
    ids.forEach(
        id -> {
          if (table.containsKey(id)) {
            out.put(id, table.get(id));
          }
        });
    return out;
  }

  @Test
  void an_answer_is_reused_within_its_time_to_live_and_read_again_after_it() {
    CachedQueueRouter router = new CachedQueueRouter(this::load, TTL, nanos::get);

    assertThat(router.queuesOf(Set.of("a", "none")))
        .as("a task without a definition goes to the default queue")
        .isEqualTo(Map.of("a", "gpu", "none", "default"));
    table.put("a", "batch");
    nanos.addAndGet(TTL.toNanos() - 1);
    assertThat(router.queuesOf(Set.of("a"))).isEqualTo(Map.of("a", "gpu"));
    nanos.addAndGet(1);
    assertThat(router.queuesOf(Set.of("a", "b"))).isEqualTo(Map.of("a", "batch", "b", "cpu"));

    assertThat(loads).containsExactly(Set.of("a", "none"), Set.of("a", "b"));
  }

  @Test
  void past_the_bound_stale_answers_go_first_then_all_of_them() {
    CachedQueueRouter router = new CachedQueueRouter(this::load, TTL, 3, nanos::get);
    router.queuesOf(Set.of("t1", "t2"));
    nanos.addAndGet(TTL.toNanos());
    router.queuesOf(Set.of("t3", "t4"));

    assertThat(router.size()).as("the two stale answers dropped").isEqualTo(2);

    router.queuesOf(Set.of("t5", "t6"));
    assertThat(router.size()).as("four fresh answers are over the bound: all dropped").isZero();
    assertThat(router.queuesOf(Set.of("a"))).isEqualTo(Map.of("a", "gpu"));
    assertThat(router.size()).isEqualTo(1);
  }
}
