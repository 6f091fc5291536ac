package dev.carillon.bench;

import dev.carillon.bench.schedules.FireSeconds;
import dev.carillon.bench.schedules.FireSeconds.Second;
import dev.carillon.bench.schedules.HeapWatch;
import dev.carillon.bench.schedules.MemoryCeiling;
import dev.carillon.bench.schedules.ScheduleMix;
import dev.carillon.bench.schedules.ScheduleMix.Cadence;
import dev.carillon.bench.schedules.ScheduleMix.Group;
import dev.carillon.bench.schedules.ScheduleMix.PlannedTask;
import dev.carillon.bench.schedules.SchedulesOptions;
import dev.carillon.bench.schedules.ZoneWeights;
import dev.carillon.devstack.DevStack;
import dev.carillon.election.Fencing;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Schema;
import dev.carillon.store.TaskStore;
import dev.carillon.store.TriggerQueries;
import dev.carillon.store.WindowStore;
import dev.carillon.testing.SettableClock;
import dev.carillon.trigger.plan.PlannerSettings;
import dev.carillon.trigger.plan.TickPlanner;
import dev.carillon.trigger.tick.DefinitionCache;
import dev.carillon.trigger.tick.TickResult;
import dev.carillon.trigger.tick.TriggerLoop;
import dev.carillon.trigger.tick.TriggerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A million schedules on one trigger (issue 24, item 2), on the devstack PostgreSQL.
 *
 * <p>Generates the tasks ({@link ScheduleMix}: zones weighted by population, 90 % daily at 08:00
 * local, 10 % hourly), applies them with {@link TaskStore#applyAll} in chunks, then drives a {@link
 * TriggerLoop} with a settable clock: a first tick one second before the day's busiest second
 * (loads and validates every definition, starts every cursor), the tick at the busiest second
 * ({@link FireSeconds}), an idle tick, and the first tick of a second, fresh loop (what a standby
 * that won the election does before it can fire anything). Measures the retained heap of the loop,
 * and from it the task count at which the trigger's default heap runs out ({@link MemoryCeiling});
 * and that of one more definition cache, which is what each of the service's other three loops held
 * before they shared the loop's.
 *
 * <p>"Started" is not measured: starting needs the dispatcher, Kafka and workers, which the bench's
 * burst workload measures. Usage: {@code SchedulesBench [tasks] [--seed S] [--apply-chunk K]
 * [--statement-timeout D]}.
 */
public final class SchedulesBench {
  /** Builds the bench and runs this class with {@code -Xmx$SCHEDULES_HEAP} (default 2g). */
  static final String COMMAND = "bench/run.sh schedules";

  /** The day whose busiest second is ticked; in November the southern zones are on summer time. */
  static final LocalDate DAY = LocalDate.parse("2026-11-28");

  private static final double MIB = 1024.0 * 1024;

  private final SchedulesOptions options;

  private SchedulesBench(SchedulesOptions options) {
    this.options = options;
  }

  public static void main(String[] args) {
    SchedulesOptions options;
    try {
      options = SchedulesOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    // Before the first logger: the tick loop's INFO lines carry each tick's phases and the
    // definition load's time (see logback.xml).
    System.setProperty("carillon.bench.tick.log", "INFO");
    try {
      new SchedulesBench(options).run();
    } catch (BenchException e) {
      System.err.println("SchedulesBench failed: " + e.getMessage());
      System.exit(1);
    }
    System.exit(0);
  }

  /** One tick's figures, copied out so that the bench holds none of the tick's objects. */
  private record Tick(long ms, int fireTimes, int created) {
    static Tick of(TickResult r) {
      return new Tick(r.took().toMillis(), r.plan().counts().fireTimes(), r.created().size());
    }
  }

  private void run() {
    int n = options.tasks();
    System.out.printf(
        "SchedulesBench: %,d tasks, seed %d, %,d definitions per apply, statement timeout %s,"
            + " max heap %.0f MiB; %d cores, JDK %s, load average %.2f%n",
        n,
        options.seed(),
        options.applyChunk(),
        options.statementTimeout(),
        Runtime.getRuntime().maxMemory() / MIB,
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    ScheduleMix mix = ScheduleMix.generate(n, options.seed(), ZoneWeights.population());
    Map<Group, Integer> counts = mix.counts();
    Second busiest = FireSeconds.busiest(counts, DAY);
    printMix(counts, busiest);

    DevStack stack = DevStack.shared();
    String url = stack.createDatabase("bench_schedules");
    DbSettings settings =
        new DbSettings(
            url,
            stack.dbUser(),
            stack.dbPassword(),
            DbSettings.DEFAULT_POOL_SIZE,
            DbSettings.DEFAULT_CONNECTION_TIMEOUT,
            DbSettings.DEFAULT_CONNECT_TIMEOUT,
            // The socket waits longer than a statement may run, as DbSettings requires.
            options.statementTimeout().plus(DbSettings.DEFAULT_SOCKET_TIMEOUT),
            options.statementTimeout(),
            false,
            Schema.DEFAULT_ROLE_PREFIX);
    try (Database db = Database.open(settings)) {
      apply(db, mix.tasks());
      mix = null;
      measureTrigger(db, busiest);
    }
    System.out.printf(
        "load average at the end: %.2f%n",
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    String xmx =
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
            .filter(a -> a.startsWith("-Xmx"))
            .reduce((a, b) -> b)
            .map(a -> "SCHEDULES_HEAP=" + a.substring(4) + " ")
            .orElse("");
    System.out.println(
        "reproduce: "
            + xmx
            + COMMAND
            + " "
            + n
            + (options.seed() != SchedulesOptions.DEFAULT_SEED ? " --seed " + options.seed() : "")
            + (options.applyChunk() != SchedulesOptions.DEFAULT_APPLY_CHUNK
                ? " --apply-chunk " + options.applyChunk()
                : "")
            + (options.statementTimeout().equals(DbSettings.DEFAULT_STATEMENT_TIMEOUT)
                ? ""
                : " --statement-timeout " + options.statementTimeout()));
  }

  private void printMix(Map<Group, Integer> counts, Second busiest) {
    int hourly =
        counts.entrySet().stream()
            .filter(e -> e.getKey().cadence() == Cadence.HOURLY)
            .mapToInt(Map.Entry::getValue)
            .sum();
    long zones = counts.keySet().stream().map(Group::zone).distinct().count();
    List<String> zoneNames = busiest.dailyZones().stream().map(ZoneId::getId).toList();
    System.out.printf(
        "mix: %,d tasks in %d zones, %,d hourly; busiest second of %s: %s, %,d tasks (%,d daily"
            + " at 08:00 in %s; %,d hourly)%n",
        counts.values().stream().mapToInt(Integer::intValue).sum(),
        zones,
        hourly,
        DAY,
        busiest.at(),
        busiest.tasks(),
        busiest.daily(),
        zoneNames,
        busiest.hourly());
  }

  private void apply(Database db, List<PlannedTask> tasks) {
    TaskStore store = new TaskStore(db.dsl());
    int chunk = options.applyChunk();
    long t0 = System.nanoTime();
    long slowest = 0;
    for (int from = 0; from < tasks.size(); from += chunk) {
      List<PlannedTask> part = tasks.subList(from, Math.min(tasks.size(), from + chunk));
      List<TaskDefinition> defs = new ArrayList<>(part.size());
      part.forEach(t -> defs.add(t.toDefinition()));
      long c0 = System.nanoTime();
      int written = store.applyAll(defs).size();
      slowest = Math.max(slowest, System.nanoTime() - c0);
      if (written != defs.size()) {
        throw new BenchException(
            "apply wrote " + written + " of " + defs.size() + " new definitions from " + from);
      }
    }
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    System.out.printf(
        "RESULT apply %,d definitions: %,d ms (%,.0f/s), %d call(s) of at most %,d, slowest call"
            + " %,d ms%n",
        tasks.size(),
        took.toMillis(),
        tasks.size() / (took.toNanos() / 1e9),
        (tasks.size() + chunk - 1) / chunk,
        chunk,
        slowest / 1_000_000);
  }

  private void measureTrigger(Database db, Second busiest) {
    int n = options.tasks();
    long heapBefore = heapUsedAfterGc();
    SettableClock clock = new SettableClock(busiest.at().minusSeconds(1));
    AtomicInteger dispatched = new AtomicInteger();
    TriggerLoop leader = loop(db, "trigger:bench", clock, dispatched);

    Tick first;
    long peakLoading;
    long collections;
    try (HeapWatch watch = HeapWatch.start()) {
      first = tick(leader, "the first tick");
      peakLoading = watch.maxAfterGc();
      collections = watch.collections();
    }
    long heapLoaded = heapUsedAfterGc();
    System.out.printf(
        "RESULT first tick (load and validate %,d definitions, start %,d cursors): %,d ms%n",
        n, n, first.ms());

    clock.set(busiest.at());
    Tick fire = tick(leader, "the busiest second's tick");
    System.out.printf(
        "RESULT busiest second %s: %,d fire times, %,d instances created, tick %,d ms"
            + " (cold JIT; phases in the 'Tick at ... phases' log line)%n",
        busiest.at(), fire.fireTimes(), fire.created(), fire.ms());
    if (fire.created() != busiest.tasks() || dispatched.get() != busiest.tasks()) {
      throw new BenchException(
          "the busiest second should create "
              + busiest.tasks()
              + " instances; created "
              + fire.created()
              + ", handed to dispatch "
              + dispatched.get());
    }

    clock.set(busiest.at().plusSeconds(1));
    Tick idle = tick(leader, "the idle tick");
    long heapSteady = heapUsedAfterGc();
    System.out.printf("RESULT idle tick after it: %,d ms%n", idle.ms());

    // A standby that won the election: a fresh loop, its own empty caches, a new epoch (which
    // fences the first loop's commits from here on).
    clock.set(busiest.at().plusSeconds(2));
    TriggerLoop standby = loop(db, "trigger:standby", clock, new AtomicInteger());
    long t0 = System.nanoTime();
    Tick takeover = tick(standby, "the standby's first tick");
    long takeoverMs = (System.nanoTime() - t0) / 1_000_000;
    long heapTwoLoops = heapUsedAfterGc();
    System.out.printf(
        "RESULT standby's takeover (a fresh loop's first tick: load %,d definitions, read %,d"
            + " cursors, nothing due): %,d ms (tick %,d ms, %,d created)%n",
        n, n, takeoverMs, takeover.ms(), takeover.created());

    DefinitionCache cache = new DefinitionCache(new TriggerQueries(db.dsl()));
    long c0 = System.nanoTime();
    int valid = cache.refresh().size();
    long cacheMs = (System.nanoTime() - c0) / 1_000_000;
    long heapCache = heapUsedAfterGc();
    Reference.reachabilityFence(leader);
    Reference.reachabilityFence(standby);
    Reference.reachabilityFence(cache);

    System.out.printf("one more definition cache: %,d valid, loaded in %,d ms%n", valid, cacheMs);
    printHeap(
        new HeapLevels(
            heapBefore, heapLoaded, heapSteady, heapTwoLoops, heapCache, peakLoading, collections),
        n);
  }

  /**
   * Heap in use after full collections at each step of {@link #measureTrigger}, and the most in use
   * after any collection during the first tick.
   */
  private record HeapLevels(
      long before,
      long loaded,
      long steady,
      long twoLoops,
      long withCache,
      long firstTickPeak,
      long firstTickCollections) {}

  private static void printHeap(HeapLevels h, int n) {
    double loopPerTask = (h.steady() - h.before()) / (double) n;
    double cachePerTask = (h.withCache() - h.twoLoops()) / (double) n;
    System.out.printf(
        "heap used after GC: %.1f MiB before the first tick; %.1f MiB after it; %.1f MiB after"
            + " the idle tick; %.1f MiB with the standby's loop too; %.1f MiB with one more"
            + " definition cache%n",
        h.before() / MIB,
        h.loaded() / MIB,
        h.steady() / MIB,
        h.twoLoops() / MIB,
        h.withCache() / MIB);
    System.out.printf(
        "RESULT trigger heap: %.1f MiB for %,d tasks after the first tick, %.1f MiB after the"
            + " idle tick = %,.0f bytes per task (the loop); a definition cache alone %,.0f bytes"
            + " per task; the standby's loop %,.0f bytes per task%n",
        (h.loaded() - h.before()) / MIB,
        n,
        (h.steady() - h.before()) / MIB,
        loopPerTask,
        cachePerTask,
        (h.twoLoops() - h.steady()) / (double) n);
    double peakPerTask = (h.firstTickPeak() - h.before()) / (double) n;
    if (h.firstTickCollections() > 0) {
      System.out.printf(
          "first tick's peak: %.1f MiB in use after the fullest of its %d collections = %,.0f"
              + " bytes per task above the level before it (garbage the old generation still held"
              + " included)%n",
          h.firstTickPeak() / MIB, h.firstTickCollections(), peakPerTask);
    } else {
      System.out.println("first tick's peak: not seen, no collection ran during the tick");
    }
    if (loopPerTask > 0) {
      MemoryCeiling ceiling = new MemoryCeiling(loopPerTask, MemoryCeiling.DEFAULT_TRIGGER_HEAP);
      System.out.printf(
          "RESULT memory ceiling: a trigger service holds ~%,.0f bytes per task (the loop, whose"
              + " definition cache its other loops share); its default heap (%.0f MiB) holds at"
              + " most %,d tasks%n",
          ceiling.serviceBytesPerTask(), MemoryCeiling.DEFAULT_TRIGGER_HEAP / MIB, ceiling.tasks());
      if (h.firstTickCollections() > 0 && peakPerTask > loopPerTask) {
        MemoryCeiling atLoad = new MemoryCeiling(peakPerTask, MemoryCeiling.DEFAULT_TRIGGER_HEAP);
        System.out.printf(
            "RESULT memory ceiling at a first tick (the loop at its peak): ~%,.0f bytes per task,"
                + " at most %,d tasks%n",
            atLoad.serviceBytesPerTask(), atLoad.tasks());
      }
    } else {
      System.out.println("memory ceiling: not computed, the heap deltas are not positive (noise)");
    }
  }

  /** One tick; a failure (a statement over the timeout, say) names the tick and its time. */
  private Tick tick(TriggerLoop loop, String what) {
    long t0 = System.nanoTime();
    try {
      return Tick.of(loop.tickOnce());
    } catch (RuntimeException e) {
      throw new BenchException(
          what
              + " failed after "
              + (System.nanoTime() - t0) / 1_000_000
              + " ms (statement timeout "
              + options.statementTimeout()
              + "; --statement-timeout raises it): "
              + e.getMessage(),
          e);
    }
  }

  private static TriggerLoop loop(
      Database db, String actor, SettableClock clock, AtomicInteger dispatched) {
    return new TriggerLoop(
        new TaskStore(db.dsl()),
        new WindowStore(db.dsl()),
        new TriggerQueries(db.dsl()),
        new TickPlanner(PlannerSettings.defaults(actor)),
        actor,
        clock,
        Duration.ofSeconds(1),
        new TriggerMetrics(new SimpleMeterRegistry()),
        (List<Instance> created) -> dispatched.addAndGet(created.size()),
        () -> true,
        // The bench's loops lead by construction: each takes the trigger epoch itself.
        Fencing.fixed(new EpochStore(db.dsl()).begin("trigger", actor)));
  }

  /** Heap in use after two full collections: what is retained, give or take the stack's threads. */
  private static long heapUsedAfterGc() {
    System.gc();
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
