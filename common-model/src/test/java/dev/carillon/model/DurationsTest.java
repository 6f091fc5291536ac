package dev.carillon.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

  @ParameterizedTest
  @CsvSource({
    "PT5M, 300000",
    "pt1h, 3600000",
    "500ms, 500",
    "30s, 30000",
    "5m, 300000",
    "1h, 3600000",
    "2d, 172800000",
    "1h30m, 5400000",
    "' 15m ', 900000"
  })
  void iso_and_short_forms_parse_to_the_same_durations(String text, long millis) {
    assertThat(Durations.parse("f", text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  // The last two overflow Duration: refused like any other bad text, not an ArithmeticException.
  @ValueSource(
      strings = {
        "",
        "5",
        "m5",
        "5 m",
        "5x",
        "1h-30m",
        "P",
        "PTxM",
        "99999999999999999d",
        "PT9999999999999999H"
      })
  void other_text_is_refused_naming_the_field_and_value(String text) {
    assertThatThrownBy(() -> Durations.parse("retry.delays[1]", text))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("retry.delays[1]")
        .hasMessageContaining("'" + text + "'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"5m", "1h30m", "2d", "500ms", "1d2h3m4s5ms", "0s"})
  void format_reads_back_to_the_same_duration(String text) {
    Duration d = Durations.parse("f", text);
    assertThat(Durations.format(d)).isEqualTo(text);
    assertThat(Durations.parse("f", Durations.format(d))).isEqualTo(d);
  }
}
