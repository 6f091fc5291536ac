package dev.carillon.model.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class WindowTest {
  private static final Instant START = Instant.parse("2026-11-29T00:00:00Z");
  private static final Instant END = Instant.parse("2026-11-30T00:00:00Z");

  @Test
  void a_window_contains_its_start_but_not_its_end() {
    Window window = new Window("2026-11-29", START, END);

    assertThat(window.contains(START)).isTrue();
    assertThat(window.contains(END.minusNanos(1))).isTrue();
    assertThat(window.contains(END)).isFalse();
    assertThat(window.contains(START.minusNanos(1))).isFalse();
  }

  @Test
  void an_end_before_the_start_is_rejected() {
    assertThatThrownBy(() -> new Window("k", END, START))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is before start");
  }

  @Test
  void keys_must_have_1_to_64_characters() {
    assertThat(new Window("k".repeat(64), START, END).key()).hasSize(64);
    assertThatThrownBy(() -> new Window("k".repeat(65), START, END))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1..64 characters");
    assertThatThrownBy(() -> new Window("", START, END))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
