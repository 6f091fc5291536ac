package dev.carillon.model.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimeoutAdviceTest {
  private static List<Duration> millis(long... values) {
    List<Duration> out = new ArrayList<>();
    for (long v : values) {
      out.add(Duration.ofMillis(v));
    }
    return out;
  }

  @Test
  void p99_is_the_nearest_rank_and_the_suggestion_one_and_a_half_times_it_rounded_up() {
    List<Duration> d = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      d.add(Duration.ofMillis(i * 10L));
    }
    Collections.reverse(d);
    TimeoutAdvice a = TimeoutAdvice.from(d).orElseThrow();
    // ceil(0.99 * 100) = 99th smallest = 990 ms; x 1.5 = 1485 ms, rounded up to 2 s.
    assertThat(a.p99()).isEqualTo(Duration.ofMillis(990));
    assertThat(a.suggested()).isEqualTo(Duration.ofSeconds(2));
    assertThat(a.sampleSize()).isEqualTo(100);
  }

  @Test
  void fewer_than_twenty_runs_are_not_evidence() {
    assertThat(TimeoutAdvice.from(millis(1, 2, 3))).isEmpty();
    assertThat(TimeoutAdvice.from(Collections.nCopies(20, Duration.ofSeconds(4))))
        .hasValueSatisfying(a -> assertThat(a.suggested()).isEqualTo(Duration.ofSeconds(6)));
  }

  @Test
  void a_timeout_below_p99_is_flagged_and_one_at_or_above_is_not() {
    TimeoutAdvice a = TimeoutAdvice.from(Collections.nCopies(30, Duration.ofSeconds(10))).get();
    assertThat(a.isAbove(Duration.ofSeconds(9))).isTrue();
    assertThat(a.isAbove(Duration.ofSeconds(10))).isFalse();
    assertThat(a.isAbove(Duration.ofSeconds(20))).isFalse();
  }
}
