package dev.carillon.trigger.tick;

import dev.carillon.election.Fencing;
import dev.carillon.election.NotLeaderException;
import dev.carillon.logging.InstanceMdc;
import dev.carillon.loop.Pace;
import dev.carillon.loop.PeriodicLoop;
import dev.carillon.loop.PeriodicLoop.StopMode;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TimeTrigger;
import dev.carillon.store.Decision;
import dev.carillon.store.Fence;
import dev.carillon.store.FencedException;
import dev.carillon.store.TaskStore;
import dev.carillon.store.TriggerQueries;
import dev.carillon.store.WindowStore;
import dev.carillon.trace.Tracing;
import dev.carillon.trigger.clock.DatabaseClock;
import dev.carillon.trigger.plan.DecisionKind;
import dev.carillon.trigger.plan.SkipReason;
import dev.carillon.trigger.plan.TaskTickSummary;
import dev.carillon.trigger.plan.TickPlan;
import dev.carillon.trigger.plan.TickPlanner;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneRules;
import java.time.zone.ZoneRulesException;
import java.time.zone.ZoneRulesProvider;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trigger's tick: load the task definitions (cached), find the tasks with a fire time in {@code
 * (cursor, now + createAhead]}, read their live instances in one query, {@link TickPlanner plan},
 * and commit rows, decisions and cursors, each task's in one transaction ({@link ChunkCommitter},
 * {@link WindowStore#commitTick}). New PENDING instances go to the dispatcher as each chunk
 * commits, and it publishes them on its own thread.
 *
 * <p>{@link #tickOnce()} runs one tick now (tests move a settable clock and call it); {@link
 * #startTicking()} runs ticks on a thread aligned to the tick interval on the clock (whole seconds
 * by default) until {@link #stopTicking()}. Ticks of one loop are serialized; two loops (a split
 * brain) may tick at once, and the UNIQUE window index plus the never-backwards cursor keep one
 * instance per window.
 *
 * <p>Cursors and next fire times are cached in memory and re-read from the database on the first
 * tick, after {@link #resync()} (called when leadership is granted) and after a tick that failed,
 * so a new leader continues from the stored cursors and a tick lost to a database failure is
 * planned again from what the database kept.
 *
 * <p>A cursor records the offset its zone had there. Every tick, a cursor whose zone's rules now
 * give another offset there (a tzdata update installed after the change it brings took effect) is
 * moved to where its local time is under the new rules ({@link TriggerCursor#underRulesOf}), logged
 * once with both offsets and counted, so that no local time is evaluated twice or skipped. Next
 * fire times are cached per zone rules, so rules that change while the JVM runs are followed too.
 *
 * <p>A tick runs under the leader's {@link Fence}, taken at its start ({@link Fencing#fence()}):
 * every statement of its commit is applied only while that fence is current, so a leader deposed
 * between its last check ({@code mayCommit}) and its commit, however long it was frozen there,
 * writes nothing ({@link FencedException}, reported to {@link Fencing#fenced}).
 */
public final class TriggerLoop {
  private static final Logger log = LoggerFactory.getLogger(TriggerLoop.class);

  private final DefinitionCache tasks;
  private final ChunkCommitter committer;
  private final TaskStore taskStore;
  private final WindowStore windows;
  private final TriggerQueries queries;
  private final TickPlanner planner;
  private final String actor;
  private final Clock clock;
  private final Duration tickInterval;
  private final TriggerMetrics metrics;
  private final Consumer<List<Instance>> dispatch;
  private final BooleanSupplier mayCommit;
  private final TickTelemetry telemetry;
  private final Fencing fencing;
  private final Duration createAhead;

  /** The most a tick waits for the database's clock to reach the multiple it was aligned to. */
  static final Duration MAX_ALIGNMENT_WAIT = Duration.ofMillis(100);

  private final Object tickLock = new Object();
  private final Map<String, TriggerCursor> cursors = new HashMap<>();
  private final Map<String, NextFire> nextFires = new HashMap<>();
  // The definitions' generation the cursors were last pruned at (DefinitionCache.generation).
  private long retainedGeneration = -1;
  private volatile boolean cursorsLoaded;
  private final AtomicReference<TickResult> lastTick = new AtomicReference<>();
  private final PeriodicLoop ticker;
  // Written by the tick thread before a commit starts; read by the committing threads it starts.
  private volatile long tickStartNanos;
  private volatile long commitStartNanos;
  private final AtomicLong lastRoundEnded = new AtomicLong(System.nanoTime());

  /**
   * The next fire time after {@code cursor} for one definition object under one set of zone rules;
   * null means never.
   */
  private record NextFire(TaskDefinition def, Instant cursor, ZoneRules rules, Instant next) {}

  // Without the zone rules: they hash slowly (ZoneRules does not cache its hash code), and the
  // memo lives for one tick only.
  private record ScheduleAt(dev.carillon.model.schedule.CronSchedule schedule, Instant cursor) {}

  private final Map<ScheduleAt, java.util.Optional<Instant>> nextFireMemo = new HashMap<>();

  /**
   * @param taskStore for the stored cursors
   * @param windows for the commit
   * @param queries for task change detection, live instances and no-op windows
   * @param planner the rules
   * @param actor who the event log names, e.g. {@code trigger:host:42}
   * @param clock the time source for "now"; a {@link DatabaseClock} is synchronized with PostgreSQL
   *     at the start of every tick
   * @param tickInterval time between ticks, at least 100 ms; ticks align to multiples of it
   * @param metrics where to count
   * @param dispatch receives the new PENDING instances after each commit (of each chunk, from the
   *     committing threads); must not block
   * @param mayCommit asked just before each commit; false (leadership lost) drops the tick
   * @param fencing the leader's fence for each tick, and where a fenced commit is reported
   */
  public TriggerLoop(
      TaskStore taskStore,
      WindowStore windows,
      TriggerQueries queries,
      TickPlanner planner,
      String actor,
      Clock clock,
      Duration tickInterval,
      TriggerMetrics metrics,
      Consumer<List<Instance>> dispatch,
      BooleanSupplier mayCommit,
      Fencing fencing) {
    this(
        taskStore,
        windows,
        queries,
        planner,
        actor,
        clock,
        tickInterval,
        metrics,
        dispatch,
        mayCommit,
        fencing,
        new DefinitionCache(queries),
        TickTelemetry.off());
  }

  /**
   * As the other constructor, reading the definitions through {@code tasks} (the trigger service's
   * one cache, shared with its other loops), with the spans and alerts of {@code telemetry}.
   *
   * @param tasks the definitions, read through {@code queries}
   * @param telemetry traces new instances and alerts late fires and skipped windows
   */
  public TriggerLoop(
      TaskStore taskStore,
      WindowStore windows,
      TriggerQueries queries,
      TickPlanner planner,
      String actor,
      Clock clock,
      Duration tickInterval,
      TriggerMetrics metrics,
      Consumer<List<Instance>> dispatch,
      BooleanSupplier mayCommit,
      Fencing fencing,
      DefinitionCache tasks,
      TickTelemetry telemetry) {
    this(
        taskStore,
        windows,
        queries,
        planner,
        actor,
        clock,
        tickInterval,
        metrics,
        dispatch,
        mayCommit,
        fencing,
        tasks,
        telemetry,
        Duration.ZERO);
  }

  /**
   * As the other constructors, creating windows up to {@code createAhead} before their fire time
   * ({@code trigger.create-ahead}; {@link TickPlanner} says which may be). Their rows are PENDING
   * with the fire time as {@code scheduled_at}; the dispatcher holds them until then, so the fire
   * lag loses the tick's insert and commit.
   *
   * @param createAhead how far past the tick's instant fire times are planned; zero for none, less
   *     than the tick interval
   */
  public TriggerLoop(
      TaskStore taskStore,
      WindowStore windows,
      TriggerQueries queries,
      TickPlanner planner,
      String actor,
      Clock clock,
      Duration tickInterval,
      TriggerMetrics metrics,
      Consumer<List<Instance>> dispatch,
      BooleanSupplier mayCommit,
      Fencing fencing,
      DefinitionCache tasks,
      TickTelemetry telemetry,
      Duration createAhead) {
    this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
    this.tasks = Objects.requireNonNull(tasks, "tasks");
    this.taskStore = Objects.requireNonNull(taskStore, "taskStore");
    this.windows = Objects.requireNonNull(windows, "windows");
    this.queries = Objects.requireNonNull(queries, "queries");
    this.planner = Objects.requireNonNull(planner, "planner");
    this.actor = Objects.requireNonNull(actor, "actor");
    this.committer = new ChunkCommitter(windows, actor);
    this.clock = Objects.requireNonNull(clock, "clock");
    if (tickInterval == null || tickInterval.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException(
          "tickInterval must be at least PT0.1S, was " + tickInterval);
    }
    this.tickInterval = tickInterval;
    // After the interval's own check, so that a missing interval is named as such.
    this.createAhead = Objects.requireNonNull(createAhead, "createAhead");
    if (createAhead.isNegative() || createAhead.compareTo(tickInterval) >= 0) {
      throw new IllegalArgumentException(
          "createAhead must be at least zero and less than the tick interval "
              + tickInterval
              + ", was "
              + createAhead);
    }
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.dispatch = Objects.requireNonNull(dispatch, "dispatch");
    this.mayCommit = Objects.requireNonNull(mayCommit, "mayCommit");
    this.fencing = Objects.requireNonNull(fencing, "fencing");
    // Aligned to the clock's multiples of the interval (the wall-clock second by default), so that
    // a fire time at hh:mm:ss is seen within a few milliseconds of it.
    this.ticker =
        new PeriodicLoop(
            "trigger-tick",
            Pace.alignedTo(tickInterval, createAhead, clock),
            StopMode.INTERRUPT,
            this::resync,
            this::tickRound);
  }

  /** Drops the cached cursors and definitions; the next tick reads them from the database. */
  public void resync() {
    cursorsLoaded = false;
  }

  /** The last tick's result, if any tick ran. */
  public java.util.Optional<TickResult> lastTick() {
    return java.util.Optional.ofNullable(lastTick.get());
  }

  /**
   * Runs one tick at the clock's current instant.
   *
   * @return what it did
   * @throws NotLeaderException if this instance does not lead (nothing was read or written)
   * @throws FencedException if another leader took over before the commit; nothing was written, and
   *     the refusal was reported to {@link Fencing#fenced}
   * @throws org.jooq.exception.DataAccessException if the database fails; nothing was committed and
   *     the next tick evaluates the same fire times again
   */
  public TickResult tickOnce() {
    synchronized (tickLock) {
      Fence fence = fencing.fence();
      return tickUnder(fence, now());
    }
  }

  /**
   * A tick at the clock's current instant, or, when the clock (just synchronized with the database)
   * has not reached {@code due} yet, once it has: the database clock's offset may have moved since
   * the wait until {@code due} was computed.
   */
  private TickResult tickNotBefore(Instant due) throws InterruptedException {
    synchronized (tickLock) {
      Fence fence = fencing.fence();
      Instant now = now();
      // Only the jitter of a measured offset is waited out; a clock that was far off (the first
      // measurement, or a host clock that stepped) ticks at once at the time it now reads.
      for (int wait = 0;
          now.isBefore(due)
              && Duration.between(now, due).compareTo(MAX_ALIGNMENT_WAIT) <= 0
              && wait < 3;
          wait++) {
        // A sleep of at most MAX_ALIGNMENT_WAIT, three times at most, on the tick thread, which
        // has nothing else to do until the fire time: ticking early would miss its fires.
        Thread.sleep(Math.max(1, Duration.between(now, due).toMillis()));
        now = now();
      }
      return tickUnder(fence, now);
    }
  }

  /** The tick at {@code now} under {@code fence}; a refused commit is reported, then thrown. */
  private TickResult tickUnder(Fence fence, Instant now) {
    try {
      return tick(fence, now);
    } catch (FencedException e) {
      fencing.fenced(e);
      throw e;
    }
  }

  /** "Now": the database's time, measured afresh, when the clock is a {@link DatabaseClock}. */
  private Instant now() {
    return clock instanceof DatabaseClock db ? db.sync() : clock.instant();
  }

  private TickResult tick(Fence fence, Instant now) {
    long t0 = System.nanoTime();
    tickStartNanos = Tracing.now();
    if (!cursorsLoaded) {
      // The definitions are not cleared: the cache is shared with the other loops and its row
      // stamps keep it exact, so a leader elected again reads only the rows changed meanwhile.
      cursors.clear();
      nextFires.clear();
      cursors.putAll(taskStore.cursors());
      cursorsLoaded = true;
      retainedGeneration = -1;
    }
    nextFireMemo.clear();
    List<TaskDefinition> all = tasks.refresh();
    // A deleted task leaves the cache and its cursor goes too (the store deleted its row), so a
    // task revived later starts from the time it returns instead of catching up. Only when the
    // definitions changed since the last time: it looks up every cursor in the cache's sorted map.
    long generation = tasks.generation();
    if (generation != retainedGeneration) {
      tasks.retainKnown(cursors);
      tasks.retainKnown(nextFires);
      retainedGeneration = generation;
    }
    // A one-shot given a new instant starts again from just before it (the apply deleted its
    // stored cursor in the same transaction); the old cursor may already be past the new instant.
    for (String id : tasks.takeMovedOneShots()) {
      if (cursors.remove(id) != null) {
        log.info("Task {}: its one-shot instant changed; evaluated again from before it", id);
      }
    }
    metrics.invalidTasks(tasks.invalidCount());
    long tLoaded = System.nanoTime();

    Instant horizon = now.plus(createAhead);
    List<TaskDefinition> due = new ArrayList<>();
    List<String> liveLookup = new ArrayList<>();
    Map<String, Instant> dueCursors = new HashMap<>();
    for (TaskDefinition t : all) {
      if (!(t.trigger() instanceof TimeTrigger time)) {
        continue; // dependency, event and condition tasks have their own loops
      }
      TriggerCursor stored = cursors.get(t.id());
      if (stored == null) {
        due.add(t);
        continue;
      }
      Instant cursor;
      Instant next;
      if (time instanceof CronTrigger cron) {
        cursor = underCurrentRules(t, cron, stored).evaluatedUntil();
        next = nextFire(t, cron, cursor, cron.zone().getRules());
      } else {
        // A one-shot's instant is absolute: no zone rule moves it or its cursor.
        cursor = stored.evaluatedUntil();
        next = time.nextAfter(cursor).orElse(null);
      }
      if (next != null && !next.isAfter(horizon)) {
        due.add(t);
        dueCursors.put(t.id(), cursor);
        // Only SKIP needs the live instances before planning: they block new windows. Under
        // ALLOW they could only turn a window that exists into a decision, and the insert finds
        // that window anyway (a no-op, logged by recordNoOps with the same reason), so the
        // lookup (one query over every due task, before the first insert) is left out.
        if (!t.paused() && t.overlap() == OverlapPolicy.SKIP) {
          liveLookup.add(t.id());
        }
      }
    }

    Map<String, List<Instance>> live = new HashMap<>();
    for (Instance i : queries.liveInstances(liveLookup)) {
      live.computeIfAbsent(i.taskId(), k -> new ArrayList<>()).add(i);
    }
    long tLive = System.nanoTime();
    TickPlan plan = planner.plan(due, dueCursors, live, now, horizon);
    long tPlanned = System.nanoTime();

    if (plan.cursors().isEmpty()) {
      return finish(new TickResult(now, plan, List.of(), List.of(), true, since(t0)));
    }
    if (!mayCommit.getAsBoolean()) {
      log.warn("Tick at {} dropped before its commit: no longer the leader", now);
      return finish(new TickResult(now, plan, List.of(), List.of(), false, since(t0)));
    }
    commitStartNanos = Tracing.now();
    List<Instance> created = committer.commit(plan, fence, this::dispatchPending);
    long tCommitted = System.nanoTime();
    plan.cursors().forEach((id, c) -> cursors.merge(id, c, TriggerLoop::later));
    List<Decision> existing = recordNoOps(plan.rows(), created, fence);
    TickResult result = new TickResult(now, plan, created, existing, true, since(t0));
    count(result);
    log(result);
    log.info(
        "Tick at {} phases: load {} ms, due+live {} ms, plan {} ms, commit {} ms, after {} ms",
        now,
        (tLoaded - t0) / 1_000_000,
        (tLive - tLoaded) / 1_000_000,
        (tPlanned - tLive) / 1_000_000,
        (tCommitted - tPlanned) / 1_000_000,
        (System.nanoTime() - tCommitted) / 1_000_000);
    return finish(result);
  }

  /** Hands a committed chunk's new PENDING instances to the dispatcher. */
  private void dispatchPending(List<Instance> created) {
    telemetry.traced(created, tickStartNanos, commitStartNanos);
    List<Instance> pending =
        created.stream().filter(i -> i.status() == InstanceStatus.PENDING).toList();
    if (!pending.isEmpty()) {
      dispatch.accept(pending);
    }
  }

  private TickResult finish(TickResult result) {
    metrics.tick(result.took());
    lastTick.set(result);
    return result;
  }

  /**
   * The task's cursor under its zone's current rules. A cursor they moved replaces the cached one
   * (the plan's commit stores it with its new offset), after one log line and a count.
   */
  private TriggerCursor underCurrentRules(
      TaskDefinition t, CronTrigger cron, TriggerCursor stored) {
    ZoneId zone = cron.zone();
    TriggerCursor current = stored.underRulesOf(zone);
    if (current.equals(stored)) {
      return stored;
    }
    if (!current.evaluatedUntil().equals(stored.evaluatedUntil())) {
      log.warn(
          "Task {}: the rules of zone {} ({}) changed under its cursor: {} was {} there and is {}"
              + " now; cursor moved from {} to {} so that no local time fires twice or not at all",
          t.id(),
          zone,
          rulesVersion(zone),
          stored.evaluatedUntil(),
          stored.offset(),
          zone.getRules().getOffset(stored.evaluatedUntil()),
          stored.evaluatedUntil(),
          current.evaluatedUntil());
      metrics.cursorMoved();
    }
    cursors.put(t.id(), current);
    return current;
  }

  /** The zone rules' version as the provider names it (tzdb's "2025b"), for the log. */
  private static String rulesVersion(ZoneId zone) {
    try {
      return "rules version " + ZoneRulesProvider.getVersions(zone.getId()).lastKey();
    } catch (ZoneRulesException | java.util.NoSuchElementException e) {
      return "fixed offset";
    }
  }

  /** Whether the loop holds a cached next fire time for {@code taskId}; for tests. */
  boolean holdsNextFireOf(String taskId) {
    synchronized (tickLock) {
      return nextFires.containsKey(taskId);
    }
  }

  private Instant nextFire(TaskDefinition t, CronTrigger cron, Instant cursor, ZoneRules rules) {
    NextFire cached = nextFires.get(t.id());
    if (cached != null
        && cached.def() == t
        && cached.cursor().equals(cursor)
        && cached.rules().equals(rules)) {
      return cached.next();
    }
    // Tasks that share a schedule and a cursor (all on-time tasks with a common cron) share the
    // answer; the memo is cleared every tick, so it holds only this tick's cursors.
    Instant next =
        nextFireMemo
            .computeIfAbsent(
                new ScheduleAt(cron.schedule(), cursor), k -> k.schedule().nextAfter(k.cursor()))
            .orElse(null);
    nextFires.put(t.id(), new NextFire(t, cursor, rules, next));
    return next;
  }

  /**
   * Planned rows whose insert was a no-op: the window exists (finished, or created by another
   * trigger in a split brain). Logged as decisions with the window's current status.
   */
  private List<Decision> recordNoOps(List<NewInstance> rows, List<Instance> created, Fence fence) {
    if (rows.size() == created.size()) {
      return List.of();
    }
    Set<String> made = new HashSet<>();
    created.forEach(i -> made.add(i.idempotencyKey()));
    List<Map.Entry<String, String>> missing = new ArrayList<>();
    for (NewInstance n : rows) {
      if (!made.contains(n.taskId() + "/" + n.window().key())) {
        missing.add(Map.entry(n.taskId(), n.window().key()));
      }
    }
    Map<String, Instance> found = queries.windows(missing);
    List<Decision> decisions = new ArrayList<>(missing.size());
    for (Map.Entry<String, String> m : missing) {
      Instance i = found.get(m.getKey() + "/" + m.getValue());
      String reason = i == null ? "window exists" : "window exists, status " + i.status();
      decisions.add(
          new Decision(m.getKey(), m.getValue(), i == null ? null : i.id(), actor, reason));
    }
    windows.recordDecisions(decisions, fence);
    return decisions;
  }

  private record Labels(String kind, String taskId) {}

  private void count(TickResult r) {
    Map<Labels, Integer> created = new HashMap<>();
    Map<Labels, Integer> skipped = new HashMap<>();
    for (Instance i : r.created()) {
      if (i.status() == InstanceStatus.PENDING) {
        created.merge(new Labels(i.origin().name(), i.taskId()), 1, Integer::sum);
        Duration lag = Duration.between(i.scheduledAt(), r.now());
        metrics.fireLag(i.taskId(), lag);
        try (InstanceMdc mdc = InstanceMdc.instance(i.taskId(), i.windowKey(), i.id())) {
          telemetry.lateFire(i, lag, r.now(), metrics);
        }
      } else if (i.failReason() != null && i.failReason().startsWith(TickPlanner.OUTSIDE_CATCHUP)) {
        skipped.merge(new Labels("catchup", i.taskId()), 1, Integer::sum);
      } else {
        skipped.merge(new Labels("overlap", i.taskId()), 1, Integer::sum);
      }
    }
    created.forEach((l, n) -> metrics.inserted(l.kind(), l.taskId(), n));
    skipped.forEach((l, n) -> metrics.skipped(l.kind(), l.taskId(), n));
    if (r.plan().counts().paused() > 0) {
      metrics.decisions("paused", r.plan().counts().paused());
    }
    int exists = r.plan().counts().exists() + r.existing().size();
    if (exists > 0) {
      metrics.decisions("exists", exists);
    }
  }

  private void log(TickResult r) {
    for (TaskTickSummary s : r.plan().summaries()) {
      try (InstanceMdc mdc = InstanceMdc.task(s.taskId(), s.firstWindow())) {
        logSummary(s, r.now());
      }
    }
    Map<String, List<Decision>> noOps = new HashMap<>();
    r.existing().forEach(d -> noOps.computeIfAbsent(d.taskId(), k -> new ArrayList<>()).add(d));
    noOps.forEach(
        (task, ds) -> {
          try (InstanceMdc mdc = InstanceMdc.task(task, ds.get(0).windowKey())) {
            log.info(
                "Task {}: {} window(s) not created; first {}: {}",
                task,
                ds.size(),
                ds.get(0).windowKey(),
                ds.get(0).reason());
          }
        });
    if (!r.created().isEmpty() || !r.plan().decisions().isEmpty()) {
      log.info(
          "Tick at {}: {} task(s) evaluated, {} instance(s) created, {} decision(s), in {} ms",
          r.now(),
          r.plan().counts().tasksEvaluated(),
          r.created().size(),
          r.plan().decisions().size() + r.existing().size(),
          r.took().toMillis());
    }
  }

  private void logSummary(TaskTickSummary s, Instant now) {
    if (s.kind().equals(SkipReason.OUTSIDE_CATCHUP.name())
        || s.kind().equals(SkipReason.OVERLAP.name())) {
      log.warn(
          "Task {}: {} window(s) skipped, {}; first {}: {}",
          s.taskId(),
          s.count(),
          SkipReason.valueOf(s.kind()).text(),
          s.firstWindow(),
          s.reason());
      if (s.kind().equals(SkipReason.OUTSIDE_CATCHUP.name())) {
        telemetry.skippedByCatchUp(s, now);
      }
    } else if (s.kind().equals(DecisionKind.TASK_PAUSED.name())
        || s.kind().equals(DecisionKind.WINDOW_EXISTS.name())) {
      log.info(
          "Task {}: {} window(s) not created; first {}: {}",
          s.taskId(),
          s.count(),
          s.firstWindow(),
          s.reason());
    } else if (log.isDebugEnabled()) {
      log.debug(
          "Task {}: {} window(s) {}; first {}", s.taskId(), s.count(), s.reason(), s.firstWindow());
    }
  }

  // ---------------------------------------------------------------- the ticking thread

  /**
   * Starts ticking on a new thread, aligned to the tick interval on the clock. Re-reads cursors
   * first. Does nothing if already ticking. A failed tick committed nothing; the next tick
   * evaluates the same fire times again.
   */
  public void startTicking() {
    // A round is overdue only from when ticking starts. The last round of an earlier term, or the
    // construction for a first term, is not this thread's progress: counted from there, a standby
    // that became leader reported itself not live until its first round ended (seen in the fault
    // suite, where that round waited on a stopped PostgreSQL).
    lastRoundEnded.set(System.nanoTime());
    ticker.start();
  }

  /**
   * Stops ticking at once: the thread is interrupted, and a tick in progress is dropped before its
   * commit if {@code mayCommit} says so. Does not wait for the thread. Does nothing if not ticking.
   */
  public void stopTicking() {
    ticker.stop();
  }

  /** Whether the ticking thread runs. */
  public boolean isTicking() {
    return ticker.isRunning();
  }

  /**
   * How long ago the ticking thread last finished a round, whether the tick succeeded, failed (the
   * database was down) or was not due to write (not the leader): a thread that makes no progress
   * for long is stuck; one whose ticks fail is not.
   */
  public Duration sinceLastRound() {
    return Duration.ofNanos(System.nanoTime() - lastRoundEnded.get());
  }

  /**
   * One round of the ticking thread. Not leading, or fenced (reported by the tick), is not a
   * failure; a failed tick is counted and makes the next one plan again from the cursors the
   * database kept (a chunk that failed committed nothing), and the loop logs it.
   */
  private void tickRound() throws InterruptedException {
    // The multiple of the interval the pace waited for, on this clock.
    long intervalMs = tickInterval.toMillis();
    long aheadMs = createAhead.toMillis();
    Instant due =
        Instant.ofEpochMilli(
            Math.floorDiv(clock.millis() + aheadMs, intervalMs) * intervalMs - aheadMs);
    try {
      tickNotBefore(due);
    } catch (NotLeaderException e) {
      log.debug("Tick skipped: {}", e.getMessage());
    } catch (FencedException e) {
      log.debug("Tick fenced: {}", e.getMessage());
    } catch (RuntimeException e) {
      metrics.tickFailed();
      resync();
      throw e;
    } finally {
      lastRoundEnded.set(System.nanoTime());
    }
  }

  private static Duration since(long t0) {
    return Duration.ofNanos(System.nanoTime() - t0);
  }

  private static TriggerCursor later(TriggerCursor a, TriggerCursor b) {
    return a.evaluatedUntil().isAfter(b.evaluatedUntil()) ? a : b;
  }
}
