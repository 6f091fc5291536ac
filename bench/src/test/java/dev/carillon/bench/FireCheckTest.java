package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FireCheckTest {
  private static final Instant T = Instant.parse("2030-01-01T00:00:00Z");

  @Test
  void a_second_run_of_a_fire_is_a_duplicate_and_an_unplanned_fire_is_unexpected() {
    Recorder r = new Recorder();
    r.started("a", T, T.plusMillis(5));
    r.started("a", T, T.plusMillis(9));
    r.started("b", T.plusMillis(1), T.plusMillis(30));

    FireCheck c = FireCheck.byFire(Set.of(FireKey.of("a", T), FireKey.of("c", T)), r.fires());

    assertThat(c.duplicates()).isEqualTo(1);
    assertThat(c.misses()).isEqualTo(1);
    assertThat(c.unexpected()).isEqualTo(1);
    assertThat(c.lag().max()).isEqualTo(5.0);
  }

  @Test
  void percentiles_use_the_nearest_rank() {
    double[] v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

    assertThat(Percentiles.of(v, 50)).isEqualTo(5);
    assertThat(Percentiles.of(v, 95)).isEqualTo(10);
    assertThat(Percentiles.median(v)).isEqualTo(5.5);
  }
}
