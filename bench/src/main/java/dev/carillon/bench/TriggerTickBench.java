package dev.carillon.bench;

import dev.carillon.devstack.DevStack;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.TaskStore;
import dev.carillon.testing.SettableClock;
import dev.carillon.trigger.tick.TickResult;
import dev.carillon.trigger.tick.TriggerLoop;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One trigger tick in which 10,000 tasks fire in the same second, on the devstack PostgreSQL.
 *
 * <p>Creates the tasks (daily at 08:00 UTC), runs a first tick at 07:59:59 (loads and validates the
 * definitions, starts the cursors), then the measured tick at 08:00:00 (10,000 PENDING instances,
 * cursors advanced, one transaction), then a tick at 08:00:01 where nothing is due. Prints each
 * duration and the command that reproduces it. Usage: {@code TriggerTickBench [tasks]}.
 */
public final class TriggerTickBench {
  private static final String COMMAND =
      "./mvnw -B -o -q -pl bench -am package dependency:build-classpath"
          + " -Dmdep.outputFile=cp.txt -DskipTests -Dspotless.check.skip=true"
          + " && java -cp bench/target/classes:$(cat bench/cp.txt)"
          + " dev.carillon.bench.TriggerTickBench 10000";

  private TriggerTickBench() {}

  public static void main(String[] args) {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    // "finish": after each day, every PENDING instance is marked SUCCESS, as a worker that keeps up
    // would; without it the PENDING rows of earlier days stay live and every firing tick reads
    // them.
    boolean finish = args.length > 1 && args[1].equals("finish");
    DevStack stack = DevStack.shared();
    String url = stack.createDatabase("bench_trigger");
    try (Database db = Database.open(new DbSettings(url, stack.dbUser(), stack.dbPassword(), 8))) {
      List<TaskDefinition> defs = BenchTrigger.dailyAtEight("bench", n);
      long t0 = System.nanoTime();
      new TaskStore(db.dsl()).applyAll(defs);
      System.out.printf("created %d tasks in %d ms%n", n, ms(t0));

      SettableClock clock = new SettableClock(Instant.parse("2026-11-28T07:59:59Z"));
      AtomicInteger dispatched = new AtomicInteger();
      TriggerLoop loop =
          BenchTrigger.loop(
              db.dsl(),
              clock,
              "trigger:bench",
              (List<Instance> created) -> dispatched.addAndGet(created.size()));

      TickResult first = loop.tickOnce();
      System.out.printf(
          "first tick (load %d definitions, start cursors): %d ms%n", n, first.took().toMillis());
      // The same firing tick on three consecutive days: the first runs on a cold JIT, the later
      // ones show what a long-running trigger does every day.
      TickResult fire = null;
      TickResult idle = null;
      for (int day = 0; day < 3; day++) {
        Instant eight = Instant.parse("2026-11-28T08:00:00Z").plus(Duration.ofDays(day));
        clock.set(eight);
        fire = loop.tickOnce();
        clock.set(eight.plusSeconds(1));
        idle = loop.tickOnce();
        if (finish) {
          db.dsl()
              .execute(
                  "update task_instance set status = 'SUCCESS', finished_at = now()"
                      + " where status = 'PENDING'");
        }
        System.out.printf(
            "day %d: tick where %d tasks fire: %d ms (%d created); idle tick after it: %d ms%n",
            day + 1,
            fire.plan().counts().fireTimes(),
            fire.took().toMillis(),
            fire.created().size(),
            idle.took().toMillis());
      }
      System.out.printf(
          "RESULT tick where %d tasks fire (day 3, warm%s): %d ms, %d instances created, %d"
              + " handed to dispatch over the three days%n",
          fire.plan().counts().fireTimes(),
          finish ? ", earlier days finished" : ", earlier days still PENDING",
          fire.took().toMillis(),
          fire.created().size(),
          dispatched.get());
      System.out.printf("idle tick (nothing due, warm): %d ms%n", idle.took().toMillis());
      System.out.println("reproduce: " + COMMAND);
    }
    System.exit(0);
  }

  private static long ms(long t0) {
    return Duration.ofNanos(System.nanoTime() - t0).toMillis();
  }
}
