package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WarmupRuleTest {
  private static final FireCheck CLEAN = FireCheck.byJob(Set.of(), Map.of());

  private static RunResult.Burst burst(Duration endToEnd, Duration compiling) {
    return new RunResult.Burst("s", 20_000, endToEnd, List.of(), CLEAN, compiling);
  }

  @Test
  void a_burst_is_settled_when_it_compiled_for_at_most_a_tenth_of_its_time() {
    assertThat(BenchRunner.settled(burst(Duration.ofMillis(1500), Duration.ofMillis(150))))
        .isTrue();
    assertThat(BenchRunner.settled(burst(Duration.ofMillis(1500), Duration.ofMillis(151))))
        .isFalse();
    assertThat(BenchRunner.settled(burst(Duration.ofMillis(1500), Duration.ZERO))).isTrue();
  }

  @Test
  void a_timed_out_or_failed_run_never_counts_as_settled() {
    assertThat(BenchRunner.settled(burst(null, Duration.ZERO))).isFalse();
    assertThat(BenchRunner.settled(new RunResult.Failed("s", "burst", "boom"))).isFalse();
  }
}
