package dev.carillon.bench.schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MemoryCeilingTest {
  @Test
  void the_service_holds_one_copy_of_the_definitions_the_loops_share() {
    MemoryCeiling c = new MemoryCeiling(2_000, 768L * 1024 * 1024);

    assertThat(c.serviceBytesPerTask()).isEqualTo(2_000);
    assertThat(c.tasks()).isEqualTo(768L * 1024 * 1024 / 2_000);
  }

  @Test
  void the_default_trigger_heap_is_three_quarters_of_its_container_limit() {
    assertThat(MemoryCeiling.DEFAULT_TRIGGER_HEAP).isEqualTo(1024L * 1024 * 1024 * 3 / 4);
  }

  @Test
  void a_loop_that_holds_nothing_is_a_measurement_error() {
    assertThatThrownBy(() -> new MemoryCeiling(0, 1_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("loopBytesPerTask > 0");
  }
}
