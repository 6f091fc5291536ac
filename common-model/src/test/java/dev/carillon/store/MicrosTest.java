package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class MicrosTest {
  @Test
  void instants_become_whole_microseconds_rounded_half_up_and_back() {
    assertThat(WindowStore.micros(Instant.EPOCH)).isZero();
    assertThat(WindowStore.micros(Instant.parse("1970-01-01T00:00:00.000001499Z"))).isEqualTo(1);
    assertThat(WindowStore.micros(Instant.parse("1970-01-01T00:00:00.0000015Z"))).isEqualTo(2);
    assertThat(WindowStore.micros(Instant.parse("1969-12-31T23:59:59.999999Z"))).isEqualTo(-1);
    // Rounding up carries into the next second.
    assertThat(WindowStore.micros(Instant.parse("2026-11-30T12:59:59.9999996Z")))
        .isEqualTo(WindowStore.micros(Instant.parse("2026-11-30T13:00:00Z")));
    for (String s :
        new String[] {
          "1969-12-31T23:59:59.999999Z",
          "2026-03-29T01:30:00.123456Z",
          "9999-12-31T23:59:59.999999Z"
        }) {
      Instant i = Instant.parse(s);
      assertThat(WindowStore.ofMicros(WindowStore.micros(i))).isEqualTo(i);
    }
  }
}
