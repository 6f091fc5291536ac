package dev.carillon.bench.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PartitionSpreadTest {
  @Test
  void each_worker_gets_its_share_exactly_however_unevenly_the_partitions_were_assigned() {
    // 6 partitions over 4 workers: two get two partitions, two get one.
    List<List<Integer>> assignment = List.of(List.of(0, 1), List.of(2, 3), List.of(4), List.of(5));
    int runs = 5003;

    List<Integer> plan = PartitionSpread.plan(runs, assignment);

    assertThat(plan).hasSize(runs);
    Map<Integer, Integer> perWorker = new HashMap<>();
    for (int p : plan) {
      int owner = -1;
      for (int w = 0; w < assignment.size(); w++) {
        if (assignment.get(w).contains(p)) {
          owner = w;
        }
      }
      perWorker.merge(owner, 1, Integer::sum);
    }
    assertThat(perWorker).containsOnlyKeys(0, 1, 2, 3);
    for (int w = 0; w < 4; w++) {
      assertThat(perWorker.get(w))
          .as("worker %d", w)
          .isEqualTo(PartitionSpread.share(runs, 4, w))
          .isLessThanOrEqualTo((runs + 3) / 4);
    }
    assertThat(PartitionSpread.share(runs, 4, 0)).isEqualTo(1251);
    assertThat(PartitionSpread.share(runs, 4, 2)).isEqualTo(1251);
    assertThat(PartitionSpread.share(runs, 4, 3)).isEqualTo(1250);
  }

  @Test
  void a_workers_share_is_spread_round_robin_over_its_partitions() {
    List<Integer> plan = PartitionSpread.plan(8, List.of(List.of(3, 7), List.of(1)));

    assertThat(plan).containsExactly(3, 1, 7, 1, 3, 1, 7, 1);
  }

  @Test
  void a_worker_without_a_partition_cannot_get_its_share() {
    assertThatThrownBy(() -> PartitionSpread.plan(10, List.of(List.of(0, 1), List.of())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("worker 1 of 2 has no partition");
    assertThatThrownBy(() -> PartitionSpread.plan(10, List.of()))
        .hasMessage("no worker to spread 10 runs over");
  }
}
