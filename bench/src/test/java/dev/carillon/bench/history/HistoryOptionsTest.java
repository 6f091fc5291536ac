package dev.carillon.bench.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HistoryOptionsTest {
  @Test
  void no_arguments_give_thirty_days_of_a_million() {
    HistoryOptions o = HistoryOptions.parse();

    assertThat(o).isEqualTo(new HistoryOptions(30, 1_000_000, 10_000, 20_000, 100));
    assertThat(o.liveInstances()).isEqualTo(30_020_000L);
    assertThat(o.warmup()).isEqualTo(10);
  }

  @Test
  void flags_in_any_order_with_separators() {
    HistoryOptions o =
        HistoryOptions.parse(
            "--rounds",
            "3",
            "--per-day",
            "50_000",
            "--days",
            "2",
            "--tasks",
            "1,000",
            "--backlog",
            "200");

    assertThat(o).isEqualTo(new HistoryOptions(2, 50_000, 1_000, 200, 3));
    assertThat(o.warmup()).as("at least five warm-up rounds").isEqualTo(5);
  }

  @Test
  void bad_arguments_are_refused_naming_the_argument_and_value() {
    assertThatThrownBy(() -> HistoryOptions.parse("--days", "many"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--days must be a whole number, was 'many'");
    assertThatThrownBy(() -> HistoryOptions.parse("--days", "0"))
        .hasMessageContaining("--days must be at least 1, was 0");
    assertThatThrownBy(() -> HistoryOptions.parse("--per-day", "99"))
        .hasMessageContaining("--per-day must be at least 100, was 99");
    assertThatThrownBy(() -> HistoryOptions.parse("--per-day", "1000", "--tasks", "1001"))
        .hasMessageContaining("--tasks (1001) must not exceed --per-day (1000)");
    assertThatThrownBy(() -> HistoryOptions.parse("--rounds"))
        .hasMessageContaining("--rounds needs a value");
    assertThatThrownBy(() -> HistoryOptions.parse("30"))
        .hasMessageContaining("unknown argument '30'");
  }
}
