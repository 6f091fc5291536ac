package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.devstack.DevStack;
import java.io.PrintStream;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every system through both workloads at a tiny size: the harness works end to end and each system
 * runs every fire exactly once. No timing is asserted; the machine may be busy.
 */
class BenchSmokeTest {
  private static final BenchOptions TINY =
      BenchOptions.parse(
          new String[] {
            "--n",
            "200",
            "--rate",
            "20",
            "--duration",
            "3s",
            "--period",
            "1s",
            "--threads",
            "4",
            "--repeats",
            "1",
            "--no-warmup"
          },
          BenchRunner.knownIds());

  static List<BenchSystem> systems() {
    return BenchRunner.knownSystems();
  }

  private static BenchRunner runner() {
    return new BenchRunner(
        DevStack.shared(),
        TINY,
        BenchRunner.knownSystems(),
        new PrintStream(PrintStream.nullOutputStream()),
        Clock.systemUTC());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("systems")
  @Timeout(120)
  void burst_runs_every_instance_exactly_once(BenchSystem system) throws Exception {
    BenchRunner runner = runner();
    RunResult r = runner.runOnce(system, runner.workload("burst"));

    assertThat(r).as(BenchRunner.describe(r)).isInstanceOf(RunResult.Burst.class);
    RunResult.Burst b = (RunResult.Burst) r;
    assertThat(b.endToEnd()).as("finished before the deadline").isNotNull();
    assertThat(b.check().duplicates()).isZero();
    assertThat(b.check().misses()).isZero();
    assertThat(b.check().unexpected()).isZero();
    assertThat(b.check().executions()).isEqualTo(200);
    assertThat(b.perSecond()).isPositive();
    b.stages().forEach(s -> assertThat(s.perSecond()).as(s.name()).isPositive());

    // The cost of creating, running and completing 200 instances, read from the dev stack.
    Cost c = b.cost();
    assertThat(c.units()).isEqualTo(200);
    assertThat(c.walBytes()).as("WAL bytes").isPresent();
    assertThat(c.walBytes().getAsLong()).as("WAL bytes").isPositive();
    assertThat(c.pgCpuMillis()).as("PostgreSQL CPU").isPresent();
    assertThat(c.commits()).as("commits").isPresent();
    assertThat(c.commits().getAsLong()).as("commits").isPositive();
    assertThat(c.tuples()).as("tuples").isPresent();
    // Every system writes at least one row per instance (and deletes or updates it).
    assertThat(c.tuples().getAsLong()).as("tuples").isGreaterThanOrEqualTo(200);
    assertThat(c.kafkaBytes()).as("Kafka bytes").isPresent();
    if (system.id().equals("carillon")) {
      assertThat(c.kafkaBytes().getAsLong()).as("Carillon's Kafka bytes").isPositive();
    }
    String md =
        Report.markdown(
            new BenchRunner.Results(
                TINY,
                Machine.describe(),
                Clock.systemUTC().instant(),
                java.time.Duration.ofSeconds(5),
                "0.0 0.0 0.0",
                List.of(system),
                List.of(r)),
            "15");
    assertThat(md)
        .contains("### Cost per instance (database and Kafka)")
        .contains("| " + system.displayName() + " | burst | 200 instances | ");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("systems")
  @Timeout(120)
  void steady_runs_every_fire_exactly_once(BenchSystem system) throws Exception {
    BenchRunner runner = runner();
    RunResult r = runner.runOnce(system, runner.workload("steady"));

    assertThat(r).as(BenchRunner.describe(r)).isInstanceOf(RunResult.Steady.class);
    RunResult.Steady s = (RunResult.Steady) r;
    assertThat(s.check().expected()).isEqualTo(60);
    assertThat(s.check().duplicates()).isZero();
    assertThat(s.check().misses()).isZero();
    assertThat(s.check().unexpected()).isZero();
    assertThat(s.check().lag().count()).isEqualTo(60);
    assertThat(s.check().lag().max()).isGreaterThanOrEqualTo(s.check().lag().p50());
    assertThat(s.cost().units()).as("planned fires").isEqualTo(60);
    assertThat(s.cost().walBytes()).as("WAL bytes").isPresent();
    assertThat(s.cost().walBytes().getAsLong()).as("WAL bytes").isPositive();
    assertThat(s.cost().commits()).as("commits").isPresent();
    assertThat(s.cost().commits().getAsLong()).as("commits").isPositive();
  }

  @org.junit.jupiter.api.Test
  @Timeout(120)
  void api_clients_list_instances_while_every_steady_fire_runs_exactly_once() throws Exception {
    BenchOptions options =
        BenchOptions.parse(
            new String[] {
              "--workload",
              "steady,api",
              "--api-clients",
              "4",
              "--rate",
              "20",
              "--duration",
              "3s",
              "--period",
              "1s",
              "--threads",
              "4",
              "--repeats",
              "1",
              "--no-warmup"
            },
            BenchRunner.knownIds());
    BenchRunner runner =
        new BenchRunner(
            DevStack.shared(),
            options,
            BenchRunner.knownSystems(),
            new PrintStream(PrintStream.nullOutputStream()),
            Clock.systemUTC());
    BenchSystem carillon = new dev.carillon.bench.carillon.CarillonSystem();

    RunResult r = runner.runOnce(carillon, runner.workload("api"));

    assertThat(r).as(BenchRunner.describe(r)).isInstanceOf(RunResult.Api.class);
    RunResult.Api a = (RunResult.Api) r;
    assertThat(a.check().expected()).isEqualTo(60);
    assertThat(a.check().duplicates()).isZero();
    assertThat(a.check().misses()).isZero();
    assertThat(a.check().unexpected()).isZero();
    assertThat(a.clients()).isEqualTo(4);
    assertThat(a.api().requests()).as("the clients sent requests").isPositive();
    assertThat(a.api().ok()).isEqualTo(a.api().requests());
    assertThat(a.api().failed()).isZero();
    assertThat(a.api().max()).isGreaterThanOrEqualTo(a.api().p99());
    assertThat(a.api().p99()).isGreaterThanOrEqualTo(a.api().p50());
    assertThat(new dev.carillon.bench.quartz.QuartzSystem().servesApi()).isFalse();

    String md =
        Report.markdown(
            new BenchRunner.Results(
                options,
                Machine.describe(),
                Clock.systemUTC().instant(),
                java.time.Duration.ofSeconds(5),
                "0.0 0.0 0.0",
                List.of(carillon),
                List.of(r)),
            "15");
    assertThat(md)
        .contains("--workload steady,api")
        .contains("--api-clients 4")
        .contains("### API under load: 4 clients listing instances")
        .contains("| Carillon | ")
        .contains("| not run |");
  }

  @org.junit.jupiter.api.Test
  void the_report_names_the_command_machine_and_every_system() throws Exception {
    BenchRunner.Results results =
        new BenchRunner.Results(
            TINY,
            Machine.describe(),
            Clock.systemUTC().instant(),
            java.time.Duration.ofSeconds(5),
            "0.0 0.0 0.0",
            BenchRunner.knownSystems(),
            List.of());

    String md = Report.markdown(results, "15");

    assertThat(md)
        .contains("bench/run.sh --workload all --system carillon,ceiling,dbscheduler,quartz");
    assertThat(md).contains("CPUs (nproc)", "db-scheduler 16.7.1", "Quartz 2.5.2");
    assertThat(md).contains("lock-and-fetch");
    assertThat(md).contains("| Carillon | Carillon ", "worker.concurrency", "EVERY_FIRE");
  }
}
