package dev.carillon.bench;

import dev.carillon.bench.carillon.CarillonSystem;
import dev.carillon.bench.ceiling.CeilingSystem;
import dev.carillon.bench.dbscheduler.DbSchedulerSystem;
import dev.carillon.bench.quartz.QuartzSystem;
import dev.carillon.devstack.DevStack;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Runs the chosen workloads on the chosen systems against one dev stack. Repeats are interleaved
 * (repeat 1 of every system, then repeat 2 ...), so a noisy minute on the machine hurts every
 * system alike instead of one. Every run gets a fresh database.
 */
public final class BenchRunner {
  /** Unmeasured full-size bursts per system before the measured runs, at most. */
  static final int WARMUP_BURSTS = 20;

  /** No further warm-up burst starts once a system's warm-up took this long. */
  static final Duration WARMUP_BUDGET = Duration.ofSeconds(420);

  /**
   * The JIT counts as settled once a warm-up burst spent at most this share of its end-to-end time
   * compiling.
   */
  static final double SETTLED_COMPILATION_SHARE = 0.10;

  private final DevStack stack;
  private final BenchOptions options;
  private final Map<String, BenchSystem> systems;
  private final PrintStream progress;
  private final Clock clock;
  private final AtomicInteger runs = new AtomicInteger();
  private final CostProbe costs;

  public BenchRunner(
      DevStack stack,
      BenchOptions options,
      List<BenchSystem> known,
      PrintStream progress,
      Clock clock) {
    this.stack = stack;
    this.options = options;
    this.systems =
        known.stream().collect(Collectors.toUnmodifiableMap(BenchSystem::id, Function.identity()));
    this.progress = progress;
    this.clock = clock;
    this.costs = CostProbe.of(stack, progress);
  }

  /** Every system the bench knows, in report order: Carillon first, then its references. */
  public static List<BenchSystem> knownSystems() {
    return List.of(
        new CarillonSystem(), new CeilingSystem(), new DbSchedulerSystem(), new QuartzSystem());
  }

  /** As {@link #knownSystems()}, Carillon with the options' {@code --create-ahead}. */
  public static List<BenchSystem> knownSystems(BenchOptions options) {
    return List.of(
        new CarillonSystem(options.createAhead(), options.claimAhead()),
        new CeilingSystem(),
        new DbSchedulerSystem(),
        new QuartzSystem());
  }

  public static List<String> knownIds() {
    return knownSystems().stream().map(BenchSystem::id).toList();
  }

  /** The results of a whole invocation. */
  public record Results(
      BenchOptions options,
      Machine machine,
      Instant started,
      Duration took,
      String loadAtEnd,
      List<BenchSystem> systems,
      List<RunResult> runs) {
    public Results {
      systems = List.copyOf(systems);
      runs = List.copyOf(runs);
    }
  }

  public Results run() throws InterruptedException {
    Machine machine = Machine.describe();
    Instant started = clock.instant();
    List<BenchSystem> chosen = options.systems().stream().map(systems::get).toList();
    if (options.warmup()) {
      // Bursts (full-size unless --warmup-n says otherwise) until the JIT has settled. In one
      // process the bench runs the services,
      // the Kafka broker and the peers, so there is a lot of code to compile: after five Carillon
      // bursts the C2 thread still used ~0.8 s of CPU inside a 2 s burst (on 2 cores), and it took
      // about 14 bursts to fall to ~0.1 s, with the burst going from ~1.9 to ~1.6 s. A fixed count
      // either wastes time on a system that settles at once or measures one still compiling, so
      // the rule is the compilation itself. Every system gets the same rule; the budget bounds a
      // slow one (Quartz: ~80 s per burst).
      Workload warm = new BurstWorkload(options.warmupSize());
      for (BenchSystem s : chosen) {
        Instant warmStart = clock.instant();
        for (int i = 1; i <= WARMUP_BURSTS; i++) {
          RunResult r = runOnce(s, warm);
          progress.println("warm-up " + i + "/" + WARMUP_BURSTS + " " + describe(r));
          if (settled(r)
              || Duration.between(warmStart, clock.instant()).compareTo(WARMUP_BUDGET) > 0) {
            break;
          }
        }
      }
    }
    List<RunResult> results = new ArrayList<>();
    for (String w : options.workloads()) {
      Workload workload = workload(w);
      for (int rep = 1; rep <= options.repeats(); rep++) {
        for (BenchSystem s : chosen) {
          if (w.equals("api") && !s.servesApi()) {
            if (rep == 1) {
              progress.println("api: skipping " + s.displayName() + ", which serves no HTTP API");
            }
            continue;
          }
          RunResult r = runOnce(s, workload);
          results.add(r);
          progress.printf(
              "%s repeat %d/%d: %s (load %s)%n",
              w, rep, options.repeats(), describe(r), Machine.loadNow());
        }
      }
    }
    return new Results(
        options,
        machine,
        started,
        Duration.between(started, clock.instant()),
        Machine.loadNow(),
        chosen,
        results);
  }

  Workload workload(String name) {
    return switch (name) {
      case "burst" -> new BurstWorkload(options.n(), costs);
      case "steady" ->
          new SteadyWorkload(
              options.rate(),
              options.duration(),
              options.period(),
              options.grace(),
              options.effectiveLead(),
              costs);
      case "api" ->
          new ApiWorkload(
              (SteadyWorkload) workload("steady"),
              options.rate(),
              options.duration(),
              options.apiClients());
      default -> throw new IllegalArgumentException("unknown workload " + name);
    };
  }

  /** One run on a fresh database, which is dropped afterwards. */
  RunResult runOnce(BenchSystem system, Workload workload) throws InterruptedException {
    String url = stack.createDatabase("bench_" + system.id() + "_" + workload.name());
    RunContext ctx =
        new RunContext(
            url,
            stack.dbUser(),
            stack.dbPassword(),
            options.threads(),
            options.poolSize(),
            options.pollInterval(),
            new Recorder(),
            clock,
            system.id() + runs.incrementAndGet(),
            stack.kafkaBootstrap(),
            stack.zkConnect(),
            options.createAhead(),
            options.claimAhead());
    try (SchedulerUnderTest sut = system.open(ctx)) {
      return workload.run(sut, system.displayName(), ctx);
    } catch (BenchException e) {
      return new RunResult.Failed(system.displayName(), workload.name(), e.getMessage());
    } finally {
      drop(url);
    }
  }

  private void drop(String url) {
    String name = url.substring(url.lastIndexOf('/') + 1);
    try (Connection c =
            DriverManager.getConnection(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
        Statement s = c.createStatement()) {
      // FORCE: a pool that is still closing must not keep the disk from being reclaimed.
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    } catch (SQLException e) {
      progress.println("could not drop " + name + ": " + e.getMessage());
    }
  }

  /** Whether a warm-up run compiled little enough (a failed or timed-out run never settles). */
  static boolean settled(RunResult r) {
    return r instanceof RunResult.Burst b
        && b.endToEnd() != null
        && b.compilation().toNanos() <= SETTLED_COMPILATION_SHARE * b.endToEnd().toNanos();
  }

  static String describe(RunResult r) {
    if (r instanceof RunResult.Burst b) {
      return String.format(
          Locale.ROOT,
          "%s burst n=%d: %s, %.0f/s, JIT compiling %d ms, %s",
          b.system(),
          b.n(),
          b.endToEnd() == null ? "TIMED OUT" : b.endToEnd().toMillis() + " ms",
          b.perSecond(),
          b.compilation().toMillis(),
          b.check());
    }
    if (r instanceof RunResult.Steady s) {
      return String.format(
          Locale.ROOT,
          "%s steady %d/s: lag p50 %.1f p99 %.1f max %.1f ms, %s",
          s.system(),
          s.rate(),
          s.check().lag().p50(),
          s.check().lag().p99(),
          s.check().lag().max(),
          s.check());
    }
    if (r instanceof RunResult.Api a) {
      return String.format(
          Locale.ROOT,
          "%s steady %d/s with %d API clients: lag p50 %.1f p99 %.1f max %.1f ms, %s; API %d"
              + " requests (%.0f/s), p50 %.1f p99 %.1f max %.1f ms, %d not 200",
          a.system(),
          a.rate(),
          a.clients(),
          a.check().lag().p50(),
          a.check().lag().p99(),
          a.check().lag().max(),
          a.check(),
          a.api().requests(),
          a.api().perSecond(),
          a.api().p50(),
          a.api().p99(),
          a.api().max(),
          a.api().failed());
    }
    RunResult.Failed f = (RunResult.Failed) r;
    return f.system() + " " + f.workload() + " FAILED: " + f.error();
  }
}
