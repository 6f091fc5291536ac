package dev.carillon.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class SettableClockTest {
  private static final Instant START = Instant.parse("2026-03-29T00:59:59Z");

  @Test
  void reads_the_same_instant_until_moved() {
    SettableClock clock = new SettableClock(START);

    assertThat(clock.instant()).isEqualTo(START);
    assertThat(clock.millis()).isEqualTo(START.toEpochMilli());
    assertThat(clock.getZone()).isEqualTo(ZoneOffset.UTC);
  }

  @Test
  void advance_and_set_move_forward() {
    SettableClock clock = new SettableClock(START);

    assertThat(clock.advance(Duration.ofSeconds(1))).isEqualTo(START.plusSeconds(1));
    clock.set(START.plusSeconds(60));
    clock.set(START.plusSeconds(60)); // standing still is allowed

    assertThat(clock.instant()).isEqualTo(START.plusSeconds(60));
  }

  @Test
  void set_refuses_to_move_backwards_and_names_both_instants() {
    SettableClock clock = new SettableClock(START);

    assertThatThrownBy(() -> clock.set(START.minusMillis(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(START.minusMillis(1).toString())
        .hasMessageContaining(START.toString());
    assertThat(clock.instant()).isEqualTo(START);
  }

  @Test
  void advance_refuses_a_negative_duration() {
    SettableClock clock = new SettableClock(START);

    assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT-1S");
    assertThat(clock.instant()).isEqualTo(START);
  }

  @Test
  void a_zoned_view_shares_the_time() {
    SettableClock clock = new SettableClock(START);
    Clock berlin = clock.withZone(ZoneId.of("Europe/Berlin"));

    clock.advance(Duration.ofSeconds(1));

    assertThat(berlin.instant()).isEqualTo(START.plusSeconds(1));
    assertThat(berlin.getZone()).isEqualTo(ZoneId.of("Europe/Berlin"));
    // 01:00 UTC on the spring-forward day is 03:00 in Berlin, not 02:00.
    assertThat(berlin.instant().atZone(berlin.getZone()).getHour()).isEqualTo(3);
  }

  @Test
  void concurrent_advances_are_all_applied() throws Exception {
    SettableClock clock = new SettableClock(START);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 1000; i++) {
                    clock.advance(Duration.ofMillis(1));
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }

    assertThat(clock.instant()).isEqualTo(START.plusMillis(4000));
  }
}
