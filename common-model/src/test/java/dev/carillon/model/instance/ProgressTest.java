package dev.carillon.model.instance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ProgressTest {
  private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

  @Test
  void a_long_report_is_cut_to_the_column_and_marked() {
    Progress p = Progress.of("x".repeat(1000), T);
    assertThat(p.text()).hasSize(Progress.MAX_CHARS).endsWith("...");
    assertThat(Progress.of("short", T).text()).isEqualTo("short");
  }

  @Test
  void a_cut_never_splits_a_surrogate_pair() {
    String text = "x".repeat(Progress.MAX_CHARS - 4) + "😀😀😀";
    Progress p = Progress.of(text, T);
    assertThat(p.text().length()).isLessThanOrEqualTo(Progress.MAX_CHARS);
    assertThat(Character.isHighSurrogate(p.text().charAt(p.text().length() - 4))).isFalse();
    assertThat(p.text()).endsWith("...");
  }

  @Test
  void null_is_a_cleared_report() {
    assertThat(Progress.of(null, T).cleared()).isTrue();
    assertThatThrownBy(() -> new Progress("x".repeat(513), T))
        .hasMessageContaining("at most 512 characters, was 513");
  }
}
