package dev.carillon.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class PaceTest {

  @Test
  void a_fixed_delay_runs_the_first_round_at_once_then_pauses_after_every_round() {
    Pace pace = Pace.fixedDelay(Duration.ofMillis(250));

    assertThat(pace.before(true, false)).isZero();
    assertThat(pace.before(false, false)).isEqualTo(Duration.ofMillis(250));
    assertThat(pace.before(false, true)).isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void a_fixed_delay_can_wait_before_the_first_round_and_longer_after_a_failure() {
    Pace pace =
        Pace.fixedDelay(Duration.ofSeconds(5), Duration.ofMillis(250), Duration.ofSeconds(1));

    assertThat(pace.before(true, false)).isEqualTo(Duration.ofSeconds(5));
    assertThat(pace.before(false, false)).isEqualTo(Duration.ofMillis(250));
    assertThat(pace.before(false, true)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void an_aligned_pace_waits_until_the_next_multiple_of_the_interval_on_the_clock() {
    Clock at300ms = Clock.fixed(Instant.parse("2026-03-29T08:00:00.300Z"), ZoneOffset.UTC);

    assertThat(Pace.alignedTo(Duration.ofSeconds(1), at300ms).before(true, false))
        .isEqualTo(Duration.ofMillis(700));
    assertThat(Pace.alignedTo(Duration.ofMillis(250), at300ms).before(false, true))
        .isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void an_aligned_pace_with_an_ahead_wakes_that_long_before_each_multiple() {
    Clock at300ms = Clock.fixed(Instant.parse("2026-03-29T08:00:00.300Z"), ZoneOffset.UTC);
    Clock at850ms = Clock.fixed(Instant.parse("2026-03-29T08:00:00.850Z"), ZoneOffset.UTC);
    Duration second = Duration.ofSeconds(1);
    Duration ahead = Duration.ofMillis(200);

    assertThat(Pace.alignedTo(second, ahead, at300ms).before(false, false))
        .as("to 08:00:00.800")
        .isEqualTo(Duration.ofMillis(500));
    assertThat(Pace.alignedTo(second, ahead, at850ms).before(false, false))
        .as("08:00:00.800 has passed: to 08:00:01.800")
        .isEqualTo(Duration.ofMillis(950));
    assertThatThrownBy(() -> Pace.alignedTo(second, second, at300ms))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ahead must be at least zero and less than the interval PT1S, was PT1S");
    assertThatThrownBy(() -> Pace.alignedTo(second, Duration.ofMillis(-1), at300ms))
        .hasMessage("ahead must be at least zero and less than the interval PT1S, was PT-0.001S");
  }

  @Test
  void an_aligned_pace_exactly_on_a_multiple_waits_a_whole_interval() {
    Clock onTheSecond = Clock.fixed(Instant.parse("2026-03-29T08:00:00Z"), ZoneOffset.UTC);

    assertThat(Pace.alignedTo(Duration.ofSeconds(1), onTheSecond).before(false, false))
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void negative_waits_and_sub_millisecond_intervals_are_refused_with_their_name() {
    assertThatThrownBy(() -> Pace.fixedDelay(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pause must not be negative, was PT-0.001S");
    assertThatThrownBy(() -> Pace.fixedDelay(Duration.ZERO, Duration.ZERO, Duration.ofSeconds(-1)))
        .hasMessage("afterFailure must not be negative, was PT-1S");
    assertThatThrownBy(() -> Pace.alignedTo(Duration.ofNanos(10), Clock.systemUTC()))
        .hasMessage("interval must be at least 1 ms, was PT0.00000001S");
  }
}
