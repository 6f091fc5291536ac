package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {
  private static final List<String> ALL = List.of("ceiling", "dbscheduler", "quartz");

  @Test
  void defaults_are_the_issue_sizes() {
    BenchOptions o = BenchOptions.parse(new String[0], ALL);

    assertThat(o.n()).isEqualTo(20_000);
    assertThat(o.rate()).isEqualTo(500);
    assertThat(o.duration()).isEqualTo(Duration.ofSeconds(60));
    assertThat(o.repeats()).isEqualTo(3);
    assertThat(o.systems()).isEqualTo(ALL);
    assertThat(o.poolSize()).isEqualTo(o.threads() + 2);
    assertThat(o.durable()).isFalse();
  }

  @Test
  void durable_is_a_flag_and_the_printed_arguments_keep_it() {
    BenchOptions o = BenchOptions.parse(new String[] {"--durable", "--workload", "burst"}, ALL);

    assertThat(o.durable()).isTrue();
    assertThat(o.toArgs()).contains("--durable");
    assertThat(BenchOptions.parse(o.toArgs().toArray(String[]::new), ALL)).isEqualTo(o);
    assertThat(BenchOptions.parse(new String[] {"--workload", "burst"}, ALL).toArgs())
        .doesNotContain("--durable");
  }

  @Test
  void warm_up_bursts_may_be_smaller_than_the_measured_one_and_the_printed_arguments_say_so() {
    BenchOptions o = BenchOptions.parse(new String[] {"--n", "100000", "--warmup-n", "20000"}, ALL);

    assertThat(o.warmupSize()).isEqualTo(20_000);
    assertThat(String.join(" ", o.toArgs())).contains("--warmup-n 20000");
    assertThat(BenchOptions.parse(o.toArgs().toArray(String[]::new), ALL)).isEqualTo(o);
    assertThat(BenchOptions.parse(new String[] {"--n", "5000"}, ALL).warmupSize())
        .as("full-size by default")
        .isEqualTo(5_000);
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--warmup-n", "0"}, ALL))
        .hasMessageContaining("--warmup-n")
        .hasMessageContaining("0");
  }

  @Test
  void create_ahead_is_off_unless_given_and_the_printed_arguments_keep_it() {
    BenchOptions o = BenchOptions.parse(new String[] {"--create-ahead", "300ms"}, ALL);

    assertThat(o.createAhead()).isEqualTo(java.time.Duration.ofMillis(300));
    assertThat(String.join(" ", o.toArgs())).contains("--create-ahead 300ms");
    assertThat(BenchOptions.parse(o.toArgs().toArray(String[]::new), ALL)).isEqualTo(o);
    assertThat(BenchOptions.parse(new String[0], ALL).toArgs()).doesNotContain("--create-ahead");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--create-ahead", "1s"}, ALL))
        .hasMessage(
            "--create-ahead must be at least 0s and less than 1s (Carillon's tick), was 1s");
  }

  @Test
  void claim_ahead_is_off_unless_given_and_the_printed_arguments_keep_it() {
    BenchOptions o =
        BenchOptions.parse(new String[] {"--create-ahead", "300ms", "--claim-ahead", "50ms"}, ALL);

    assertThat(o.claimAhead()).isEqualTo(java.time.Duration.ofMillis(50));
    assertThat(String.join(" ", o.toArgs())).contains("--claim-ahead 50ms");
    assertThat(BenchOptions.parse(o.toArgs().toArray(String[]::new), ALL)).isEqualTo(o);
    assertThat(BenchOptions.parse(new String[0], ALL).toArgs()).doesNotContain("--claim-ahead");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--claim-ahead", "2s"}, ALL))
        .hasMessage("--claim-ahead must be 0s..1s (worker.claim-ahead), was 2s");
  }

  @Test
  void the_printed_arguments_parse_back_to_the_same_options() {
    BenchOptions o =
        BenchOptions.parse(
            new String[] {"--workload=steady", "--system", "quartz", "--duration", "30s"}, ALL);

    assertThat(BenchOptions.parse(o.toArgs().toArray(String[]::new), ALL)).isEqualTo(o);
  }

  @Test
  void the_api_workload_is_chosen_beside_steady_with_its_client_count_and_printed_back() {
    BenchOptions o =
        BenchOptions.parse(
            new String[] {"--workload", "steady,api", "--api-clients", "7", "--system", "quartz"},
            ALL);

    assertThat(o.workloads()).containsExactly("steady", "api");
    assertThat(o.apiClients()).isEqualTo(7);
    assertThat(BenchOptions.parse(new String[0], ALL).apiClients()).isEqualTo(50);
    assertThat(BenchOptions.parse(new String[0], ALL).workloads())
        .as("all is burst and steady")
        .containsExactly("burst", "steady");
    assertThat(String.join(" ", o.toArgs()))
        .contains("--workload steady,api")
        .contains("--api-clients 7");
    assertThat(BenchOptions.parse(o.toArgs().toArray(String[]::new), ALL)).isEqualTo(o);
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--workload", "steady,http"}, ALL))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--workload must be all or a comma list of burst, steady, api, was 'http'");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--api-clients", "0"}, ALL))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--api-clients must be positive, was 0");
  }

  @Test
  void an_unknown_system_is_refused_with_the_known_ones() {
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--system", "cron4j"}, ALL))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ceiling, dbscheduler, quartz")
        .hasMessageContaining("cron4j");
  }
}
