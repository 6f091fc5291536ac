package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The lifecycle bench's command line, and the server CPU read it relies on. */
class LifecycleCostBenchTest {
  @Test
  void options_default_and_round_trip_into_the_command_that_reproduces_them() {
    LifecycleCostBench.Options defaults = LifecycleCostBench.Options.parse(new String[0]);
    assertThat(defaults)
        .isEqualTo(new LifecycleCostBench.Options(100_000, 500, 3, false, false, List.of()));

    String[] args = {
      "--n",
      "2000",
      "--batch",
      "100",
      "--rounds",
      "2",
      "--no-events",
      "--no-stamp",
      "--drop-index",
      "ix_a,ix_b"
    };
    LifecycleCostBench.Options o = LifecycleCostBench.Options.parse(args);
    assertThat(o)
        .isEqualTo(
            new LifecycleCostBench.Options(2000, 100, 2, true, true, List.of("ix_a", "ix_b")));
    assertThat(LifecycleCostBench.Options.parse(o.args().trim().split(" "))).isEqualTo(o);
  }

  @Test
  void bad_options_are_refused_naming_the_option_and_the_value() {
    assertThatThrownBy(() -> LifecycleCostBench.Options.parse(new String[] {"--n", "0"}))
        .hasMessage("--n must be a positive integer, was \"0\"");
    assertThatThrownBy(() -> LifecycleCostBench.Options.parse(new String[] {"--batch", "ten"}))
        .hasMessage("--batch must be a positive integer, was \"ten\"");
    assertThatThrownBy(() -> LifecycleCostBench.Options.parse(new String[] {"--rounds"}))
        .hasMessage("--rounds needs a value");
    // Index names go into DDL text, so only plain identifiers pass.
    assertThatThrownBy(
            () ->
                LifecycleCostBench.Options.parse(
                    new String[] {"--drop-index", "ix_a;drop table x"}))
        .hasMessage("--drop-index: \"ix_a;drop table x\" is not an index name ([a-z_][a-z0-9_]*)");
    assertThatThrownBy(() -> LifecycleCostBench.Options.parse(new String[] {"--fast"}))
        .hasMessage("unknown option \"--fast\"");
  }

  @Test
  void the_server_cpu_read_refuses_a_process_that_is_not_postgres() throws Exception {
    assertThat(CostProbe.serverTicks(ProcessHandle.current().pid())).isEqualTo(-1);
    // Linux's pids stay below 2^22 by default and never reach this one.
    assertThat(CostProbe.serverTicks(Integer.MAX_VALUE)).isEqualTo(-1);
  }
}
