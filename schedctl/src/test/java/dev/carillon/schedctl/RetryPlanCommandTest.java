package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Runs with an empty environment: retry-plan must not need PostgreSQL or Kafka settings. */
class RetryPlanCommandTest {
  @Test
  void one_hour_at_five_minutes_doubling_fits_three_retries_in_35_minutes() {
    Cli.Result r =
        Cli.run(Map.of(), "retry-plan", "--recovery", "1h", "--initial", "5m", "--multiplier", "2");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("3 retries fit in 1h")
        .contains("the last starts 35m after the first failure")
        .containsPattern("1\\s+5m\\s+5m")
        .containsPattern("2\\s+10m\\s+15m")
        .containsPattern("3\\s+20m\\s+35m");
  }

  @Test
  void json_output_parses_and_carries_the_policy_to_paste() {
    JsonNode j =
        Cli.run(Map.of(), "retry-plan", "--recovery", "PT1H", "--initial", "PT5M", "-o", "json")
            .json();
    assertThat(j.get("retries").asInt()).isEqualTo(3);
    assertThat(j.get("cumulative").asText()).isEqualTo("PT35M");
    assertThat(j.get("policy").get("policy").asText()).isEqualTo("EXPONENTIAL");
    assertThat(j.get("steps").findValuesAsText("startsAfter"))
        .containsExactly("PT5M", "PT15M", "PT35M");
  }

  @Test
  void bad_values_exit_2_naming_the_option() {
    Cli.Result m =
        Cli.run(Map.of(), "retry-plan", "--recovery", "1h", "--initial", "5m", "--multiplier", "1");
    assertThat(m.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(m.err()).contains("--multiplier").contains("must be more than 1");
    Cli.Result d = Cli.run(Map.of(), "retry-plan", "--recovery", "soon", "--initial", "5m");
    assertThat(d.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(d.err()).contains("'soon' is not a duration");
    Cli.Result neg = Cli.run(Map.of(), "retry-plan", "--recovery", "PT-1H", "--initial", "5m");
    assertThat(neg.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(neg.err()).contains("recovery must be more than 0");
  }

  @Test
  void no_command_and_unknown_commands_are_usage_errors() {
    assertThat(Cli.run(Map.of()).code()).isEqualTo(Schedctl.BAD_INPUT);
    Cli.Result r = Cli.run(Map.of(), "rerunn", "5");
    assertThat(r.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(r.err()).contains("Unmatched argument");
    assertThat(Cli.run(Map.of(), "--help").code()).isZero();
  }
}
