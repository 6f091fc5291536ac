package dev.carillon.bench.schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SchedulesOptionsTest {
  @Test
  void no_arguments_give_a_million_tasks_with_the_triggers_statement_timeout() {
    SchedulesOptions o = SchedulesOptions.parse();

    assertThat(o.tasks()).isEqualTo(1_000_000);
    assertThat(o.applyChunk()).isEqualTo(100_000);
    assertThat(o.statementTimeout()).isEqualTo(Duration.ofSeconds(15));
  }

  @Test
  void tasks_first_then_flags() {
    SchedulesOptions o =
        SchedulesOptions.parse(
            "50_000", "--seed", "7", "--apply-chunk", "10000", "--statement-timeout", "2m");

    assertThat(o).isEqualTo(new SchedulesOptions(50_000, 7, 10_000, Duration.ofMinutes(2)));
  }

  @Test
  void bad_arguments_are_refused_naming_the_argument_and_value() {
    assertThatThrownBy(() -> SchedulesOptions.parse("lots"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tasks")
        .hasMessageContaining("'lots'");
    assertThatThrownBy(() -> SchedulesOptions.parse("0"))
        .hasMessageContaining("tasks must be at least 1, was 0");
    assertThatThrownBy(() -> SchedulesOptions.parse("10", "--apply-chunk"))
        .hasMessageContaining("--apply-chunk needs a value");
    assertThatThrownBy(() -> SchedulesOptions.parse("10", "--statement-timeout", "soon"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("soon");
    assertThatThrownBy(() -> SchedulesOptions.parse("10", "20"))
        .hasMessageContaining("unknown argument '20'");
    assertThatThrownBy(() -> SchedulesOptions.parse("3000000000"))
        .hasMessageContaining("'3000000000'");
  }
}
