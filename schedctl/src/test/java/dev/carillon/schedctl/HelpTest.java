package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Help works without any connection settings, before and after every command name. */
class HelpTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "apply",
        "get",
        "describe",
        "why",
        "next",
        "rerun",
        "backfill",
        "pause",
        "resume",
        "cancel",
        "quarantine",
        "config",
        "retry-plan",
        "suggest-timeout"
      })
  void every_command_answers_help_with_its_usage(String command) {
    Cli.Result r = Cli.run(Map.of(), command, "--help");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("Usage: schedctl " + command);
  }

  @Test
  void the_root_lists_the_commands_and_the_version_is_printed() {
    Cli.Result help = Cli.run(Map.of(), "--help");
    assertThat(help.code()).isZero();
    assertThat(help.out())
        .contains("apply")
        .contains("retry-plan")
        .contains("suggest-timeout")
        .contains("Exit codes:");
    Cli.Result version = Cli.run(Map.of(), "--version");
    assertThat(version.code()).isZero();
    assertThat(version.out()).contains("schedctl 0.1.0");
  }
}
