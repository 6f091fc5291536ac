package dev.carillon.bench.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ExecOptionsTest {
  @Test
  void no_arguments_are_200_runs_of_30_seconds_on_one_worker_with_platform_threads() {
    ExecOptions o = ExecOptions.parse(new String[0]);

    assertThat(o).isEqualTo(ExecOptions.defaults());
    assertThat(o.runs()).isEqualTo(200);
    assertThat(o.sleep()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.workers()).isEqualTo(1);
    assertThat(o.java()).isEmpty();
    assertThat(o.virtualThreads()).isFalse();
    assertThat(o.concurrencyPerWorker()).isEqualTo(200);
  }

  @Test
  void every_option_is_read_and_the_printed_command_parses_back_to_the_same_options() {
    ExecOptions o =
        ExecOptions.parse(
            new String[] {
              "--runs",
              "5000",
              "--sleep",
              "1m",
              "--workers",
              "5",
              "--heap",
              "768m",
              "--java",
              "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java",
              "--virtual-threads"
            });

    assertThat(o.runs()).isEqualTo(5000);
    assertThat(o.sleep()).isEqualTo(Duration.ofMinutes(1));
    assertThat(o.workers()).isEqualTo(5);
    assertThat(o.heap()).isEqualTo("768m");
    assertThat(o.java()).contains(Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));
    assertThat(o.virtualThreads()).isTrue();
    assertThat(o.command())
        .isEqualTo(
            "bench/run.sh exec --runs 5000 --sleep 1m --heap 768m --workers 5"
                + " --java /usr/lib/jvm/temurin-25-jdk-amd64/bin/java --virtual-threads");
    assertThat(ExecOptions.parse(o.toArgs().toArray(String[]::new))).isEqualTo(o);
  }

  @Test
  void each_worker_holds_the_runs_split_evenly_and_rounded_up() {
    assertThat(parse("--runs", "5000", "--workers", "5").concurrencyPerWorker()).isEqualTo(1000);
    assertThat(parse("--runs", "5001", "--workers", "5").concurrencyPerWorker()).isEqualTo(1001);
    assertThat(parse("--runs", "10000", "--workers", "10").concurrencyPerWorker()).isEqualTo(1000);
    assertThat(parse("--runs", "300", "--workers", "2").concurrencyPerWorker()).isEqualTo(150);
  }

  @Test
  void more_runs_per_worker_than_worker_concurrency_allows_is_refused_with_the_workers_needed() {
    assertThatThrownBy(() -> parse("--runs", "5000", "--workers", "4"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1250 runs at once")
        .hasMessageContaining("worker.concurrency's 1024")
        .hasMessageContaining("use --workers 5 or more");
    assertThatThrownBy(() -> parse("--runs", "10000"))
        .hasMessageContaining("use --workers 10 or more");
    assertThat(parse("--runs", "1024").concurrencyPerWorker()).isEqualTo(1024);
  }

  @Test
  void out_of_range_and_malformed_values_name_the_option_and_the_value() {
    assertThatThrownBy(() -> parse("--runs", "10001", "--workers", "20"))
        .hasMessage("--runs must be 1..10000, was 10001");
    assertThatThrownBy(() -> parse("--runs", "0")).hasMessage("--runs must be 1..10000, was 0");
    assertThatThrownBy(() -> parse("--runs", "many"))
        .hasMessage("--runs must be a whole number, was 'many'");
    assertThatThrownBy(() -> parse("--workers", "0")).hasMessage("--workers must be 1..16, was 0");
    assertThatThrownBy(() -> parse("--runs", "3", "--workers", "4"))
        .hasMessage("--workers (4) must not exceed --runs (3)");
    assertThatThrownBy(() -> parse("--sleep", "1500ms"))
        .hasMessage("--sleep must be whole seconds, 1s..1h, was 1s500ms");
    assertThatThrownBy(() -> parse("--sleep", "2h"))
        .hasMessage("--sleep must be whole seconds, 1s..1h, was 2h");
    assertThatThrownBy(() -> parse("--heap", "lots"))
        .hasMessage("--heap must be a JVM heap size such as 512m or 2g, was 'lots'");
    assertThatThrownBy(() -> parse("--java", " ")).hasMessageContaining("--java");
    assertThatThrownBy(() -> parse("--speed", "3")).hasMessage("unknown option '--speed'");
    assertThatThrownBy(() -> parse("--runs")).hasMessage("option '--runs' needs a value");
  }

  @Test
  void the_java_path_is_kept_as_given_after_normalising() {
    assertThat(parse("--java", "/opt/jdk/bin/../bin/java").java())
        .isEqualTo(Optional.of(Path.of("/opt/jdk/bin/java")));
  }

  private static ExecOptions parse(String... args) {
    return ExecOptions.parse(args);
  }
}
