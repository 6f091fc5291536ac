package dev.carillon.bench;

import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackOptions;
import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.worker.Serves;
import dev.carillon.store.AttemptEnd;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.Lease;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.Outcome;
import dev.carillon.store.TaskStore;
import dev.carillon.testing.SettableClock;
import dev.carillon.trigger.tick.TriggerLoop;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jooq.DSLContext;

/**
 * What PostgreSQL spends on each step of an instance's life, one step at a time, on one thread: the
 * trigger's tick that creates the instances (with their events and the cursors), the dispatch
 * stamp, the workers' claims and the ends, each through the services' own store code, with no
 * Kafka, no worker threads and no JIT of a whole system competing for the two cores. Per step it
 * prints PostgreSQL's CPU (every server process, so the WAL writer's share too) and WAL bytes per
 * instance.
 *
 * <p>Options change the schema or the path, to measure what a change of either would save before it
 * is made: {@code --no-events} drops every {@code instance_event} row in a {@code BEFORE INSERT}
 * trigger (the cost of writing none, plus one trigger call per row), {@code --drop-index a,b} drops
 * indexes of {@code task_instance}, {@code --no-stamp} leaves the dispatch stamp out. Autovacuum is
 * off for the run's tables and a {@code VACUUM} (not measured) runs between rounds, so that a step
 * is not charged for a vacuum that happened to start during it.
 *
 * <p>Usage: {@code LifecycleCostBench [--n N] [--batch B] [--rounds R] [--no-events] [--no-stamp]
 * [--drop-index NAME,...]}; the first round runs on a cold JVM and cold caches, later rounds are
 * the figures to compare.
 */
public final class LifecycleCostBench {
  private static final String COMMAND = "bench/run.sh lifecycle";

  /** The parsed command line. */
  record Options(
      int n, int batch, int rounds, boolean noEvents, boolean noStamp, List<String> dropIndexes) {
    static Options parse(String[] args) {
      int n = 100_000;
      int batch = 500;
      int rounds = 3;
      boolean noEvents = false;
      boolean noStamp = false;
      List<String> drop = new ArrayList<>();
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--n" -> n = positive("--n", args, ++i);
          case "--batch" -> batch = positive("--batch", args, ++i);
          case "--rounds" -> rounds = positive("--rounds", args, ++i);
          case "--no-events" -> noEvents = true;
          case "--no-stamp" -> noStamp = true;
          case "--drop-index" -> {
            for (String name : value("--drop-index", args, ++i).split(",")) {
              if (!name.matches("[a-z_][a-z0-9_]*")) {
                throw new IllegalArgumentException(
                    "--drop-index: \"" + name + "\" is not an index name ([a-z_][a-z0-9_]*)");
              }
              drop.add(name);
            }
          }
          default -> throw new IllegalArgumentException("unknown option \"" + args[i] + "\"");
        }
      }
      return new Options(n, batch, rounds, noEvents, noStamp, List.copyOf(drop));
    }

    private static String value(String option, String[] args, int i) {
      if (i >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      return args[i];
    }

    private static int positive(String option, String[] args, int i) {
      String v = value(option, args, i);
      try {
        int x = Integer.parseInt(v);
        if (x > 0) {
          return x;
        }
      } catch (NumberFormatException e) {
        // said below
      }
      throw new IllegalArgumentException(option + " must be a positive integer, was \"" + v + "\"");
    }

    /** The options as {@code bench/run.sh lifecycle} takes them, each with a leading space. */
    String args() {
      return " --n "
          + n
          + " --batch "
          + batch
          + " --rounds "
          + rounds
          + (noEvents ? " --no-events" : "")
          + (noStamp ? " --no-stamp" : "")
          + (dropIndexes.isEmpty() ? "" : " --drop-index " + String.join(",", dropIndexes));
    }
  }

  private LifecycleCostBench() {}

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("LifecycleCostBench: " + e.getMessage());
      System.err.println(
          "usage: LifecycleCostBench [--n N] [--batch B] [--rounds R] [--no-events] [--no-stamp]"
              + " [--drop-index NAME,...]");
      System.exit(2);
      return;
    }
    int exit = 0;
    try (DevStack stack = DevStack.start(DevStackOptions.defaults())) {
      run(stack, o);
    } catch (RuntimeException e) {
      System.err.println("LifecycleCostBench failed: " + e);
      e.printStackTrace();
      exit = 1;
    }
    // Kafka and ZooKeeper leave non-daemon threads behind; the report is out, so leave now.
    System.exit(exit);
  }

  private static void run(DevStack stack, Options o) throws IOException, InterruptedException {
    long hz = CostProbe.askTicksPerSecond();
    long postmaster = stack.postgres().postmasterPid();
    String url = stack.createDatabase("bench_lifecycle");
    DbSettings settings = new DbSettings(url, stack.dbUser(), stack.dbPassword(), 4);
    try (Database trigger = Database.open(settings);
        Database worker = Database.open(settings, Database.PRIMARY_KEY_PLANS)) {
      DSLContext dsl = trigger.dsl();
      prepare(dsl, o);
      List<TaskDefinition> defs = BenchTrigger.dailyAtEight("life", o.n());
      new TaskStore(dsl).applyAll(defs);
      SettableClock clock = new SettableClock(Instant.parse("2026-11-21T07:59:59Z"));
      // The tick's result, not its dispatch callback: the commit threads call that, concurrently.
      List<Long> created = new ArrayList<>();
      TriggerLoop loop =
          BenchTrigger.loop(dsl, clock, "trigger:lifecycle", (List<Instance> batch) -> {});
      loop.tickOnce();
      LeaseStore leases = new LeaseStore(worker.dsl());
      Serves serves = new Serves(Set.of(TaskDefinition.DEFAULT_QUEUE), Set.of("noop"));
      Meter meter = new Meter(postmaster, hz, dsl);
      System.out.println("# lifecycle cost:" + o.args());
      System.out.println(
          "| round | step | statements | wall ms | PostgreSQL CPU µs / instance | WAL B / instance |");
      System.out.println("|---:|---|---:|---:|---:|---:|");
      for (int round = 1; round <= o.rounds(); round++) {
        created.clear();
        clock.set(Instant.parse("2026-11-20T08:00:00Z").plus(Duration.ofDays(round)));
        int r = round;
        meter.step(
            r,
            "tick: create (instances, events, cursors)",
            o.n(),
            () -> {
              loop.tickOnce().created().forEach(i -> created.add(i.id()));
              return -1; // one tick, of many statements: the column stays empty
            });
        if (created.size() != o.n()) {
          throw new IllegalStateException(
              "round " + round + ": the tick created " + created.size() + ", not " + o.n());
        }
        List<Long> ids = List.copyOf(created);
        if (!o.noStamp()) {
          meter.step(
              r,
              "dispatch stamp",
              o.n(),
              () -> {
                int stamped = leases.markDispatched(ids);
                check("stamped", stamped, ids.size());
                return LeaseStore.stampStatements(ids.size());
              });
        }
        List<ClaimedInstance> claimed = new ArrayList<>(ids.size());
        meter.step(
            r,
            "claim",
            o.n(),
            () -> {
              int statements = 0;
              for (int from = 0; from < ids.size(); from += o.batch()) {
                List<Long> part = ids.subList(from, Math.min(ids.size(), from + o.batch()));
                claimed.addAll(leases.claimForRun(part, "worker:lifecycle", serves));
                statements++;
              }
              check("claimed", claimed.size(), ids.size());
              return statements;
            });
        meter.step(
            r,
            "end (SUCCESS)",
            o.n(),
            () -> {
              int statements = 0;
              int ended = 0;
              for (int from = 0; from < claimed.size(); from += o.batch()) {
                List<AttemptEnd> ends = new ArrayList<>();
                for (ClaimedInstance c :
                    claimed.subList(from, Math.min(claimed.size(), from + o.batch()))) {
                  ends.add(
                      new AttemptEnd(
                          new Lease(c.id(), c.attempt()), Outcome.success("ok", false, null)));
                }
                ended += leases.completeAll(ends, "worker:lifecycle").size();
                statements++;
              }
              check("ended", ended, ids.size());
              return statements;
            });
        meter.roundTotal(r, o.n());
        // Not measured: what autovacuum would do between bursts, so the next round starts clean.
        dsl.execute("VACUUM task_instance, instance_event, trigger_cursor");
      }
      System.out.println();
      System.out.println(
          "PostgreSQL "
              + dsl.fetchValue("show server_version")
              + ", synchronous_commit "
              + dsl.fetchValue("show synchronous_commit")
              + ", "
              + Runtime.getRuntime().availableProcessors()
              + " cores; reproduce: "
              + COMMAND
              + o.args());
    }
  }

  /** The variant's schema changes, and autovacuum off for the tables the steps write. */
  private static void prepare(DSLContext dsl, Options o) {
    for (String table : List.of("task_instance", "instance_event", "trigger_cursor")) {
      dsl.execute("ALTER TABLE " + table + " SET (autovacuum_enabled = false)");
    }
    for (String index : new LinkedHashSet<>(o.dropIndexes())) {
      // Names checked by Options.parse; an index that is not there is an error, not a no-op.
      dsl.execute("DROP INDEX " + index);
    }
    if (o.noEvents()) {
      dsl.execute(
          "CREATE FUNCTION bench_drop_event() RETURNS trigger LANGUAGE plpgsql"
              + " AS $$ BEGIN RETURN NULL; END $$");
      dsl.execute(
          "CREATE TRIGGER bench_drop_event BEFORE INSERT ON instance_event"
              + " FOR EACH ROW EXECUTE FUNCTION bench_drop_event()");
    }
  }

  private static void check(String what, int got, int expected) {
    if (got != expected) {
      throw new IllegalStateException(what + " " + got + " of " + expected);
    }
  }

  /** A measured step: returns how many statements it sent, or -1 for none to print. */
  @FunctionalInterface
  interface Step {
    int run();
  }

  /** Measures steps: the server's CPU and the WAL between the start and the end of each. */
  private static final class Meter {
    private final long postmaster;
    private final long hz;
    private final DSLContext dsl;
    private long roundTicks;
    private long roundWal;
    private long roundNanos;

    Meter(long postmaster, long hz, DSLContext dsl) {
      this.postmaster = postmaster;
      this.hz = hz;
      this.dsl = dsl;
    }

    void step(int round, String name, int instances, Step step) throws IOException {
      long wal0 = wal();
      long ticks0 = ticks();
      long t0 = System.nanoTime();
      int statements = step.run();
      long nanos = System.nanoTime() - t0;
      long ticks = ticks() - ticks0;
      long wal = wal() - wal0;
      roundTicks += ticks;
      roundWal += wal;
      roundNanos += nanos;
      print(round, name, statements, nanos, ticks, wal, instances);
    }

    void roundTotal(int round, int instances) {
      print(round, "**all steps**", -1, roundNanos, roundTicks, roundWal, instances);
      roundTicks = 0;
      roundWal = 0;
      roundNanos = 0;
    }

    private void print(
        int round, String name, int statements, long nanos, long ticks, long wal, int instances) {
      System.out.printf(
          "| %d | %s | %s | %d | %.1f | %.0f |%n",
          round,
          name,
          statements < 0 ? "" : Integer.toString(statements),
          nanos / 1_000_000,
          ticks * 1e6 / hz / instances,
          (double) wal / instances);
    }

    private long ticks() throws IOException {
      long t = CostProbe.serverTicks(postmaster);
      if (t < 0) {
        throw new IllegalStateException("PostgreSQL's postmaster " + postmaster + " is gone");
      }
      return t;
    }

    private long wal() {
      return dsl.fetchSingle(CostProbe.WAL_INSERT_POSITION).get(0, Long.class);
    }
  }
}
