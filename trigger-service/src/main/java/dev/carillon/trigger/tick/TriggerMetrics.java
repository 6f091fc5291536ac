package dev.carillon.trigger.tick;

import dev.carillon.metrics.Buckets;
import dev.carillon.metrics.TaskLabel;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The trigger's meters, named {@code carillon.trigger.*} (Prometheus: {@code carillon_trigger_*},
 * units and {@code _total} appended). Thread-safe.
 *
 * <ul>
 *   <li>{@code ticks}, {@code tick.duration}: ticks run and how long each took (histogram)
 *   <li>{@code ticks.failed}: ticks that failed (the database down or too slow), retried on the
 *       next tick
 *   <li>{@code instances.inserted{origin, task}}: PENDING rows created
 *   <li>{@code instances.skipped{reason, task}}: SKIPPED rows created ({@code catchup}, {@code
 *       overlap})
 *   <li>{@code decisions{kind}}: decisions that created nothing
 *   <li>{@code fire.lag{task}}: now − fire time when a PENDING row was created (histogram)
 *   <li>{@code fires.late{task}}: fires whose lag passed their task's late-fire bound
 *   <li>{@code publish{result}}: instance messages acknowledged ({@code ok}), not ({@code failed})
 *       or left to the sweep ({@code deferred})
 *   <li>{@code dispatch.oldest.age}: seconds the oldest never-dispatched PENDING instance has
 *       waited (the leader's sweep measures it; alert when it grows past a minute: Kafka is away)
 *   <li>{@code dispatch.backlog}: instances waiting in the dispatch queue (its bound is {@code
 *       trigger.max-dispatch-backlog})
 *   <li>{@code leader}: 1 while this instance leads
 *   <li>{@code tasks.invalid}: task rows that fail validation
 *   <li>{@code cursor.moved}: cursors moved because their zone's rules changed under them
 * </ul>
 *
 * <p>The {@code task} label is capped by {@link TaskLabel}.
 */
public final class TriggerMetrics {
  private final MeterRegistry registry;
  private final TaskLabel tasks;
  private final Counter ticks;
  private final Counter ticksFailed;
  private final Timer tickDuration;
  private final Counter publishOk;
  private final Counter publishFailed;
  private final Counter publishDeferred;
  private final Counter cursorMoved;
  // The fire lag is recorded once per instance, so its timers are kept rather than looked up.
  private final Map<String, Timer> fireLagByLabel = new ConcurrentHashMap<>();
  private final AtomicInteger leader = new AtomicInteger();
  private final AtomicLong oldestUndispatchedMillis = new AtomicLong();
  private final AtomicInteger invalidTasks = new AtomicInteger();

  /** Meters with the default cap on task labels. */
  public TriggerMetrics(MeterRegistry registry) {
    this(registry, new TaskLabel(TaskLabel.DEFAULT_LIMIT));
  }

  public TriggerMetrics(MeterRegistry registry, TaskLabel tasks) {
    this.registry = registry;
    this.tasks = tasks;
    this.ticks =
        Counter.builder("carillon.trigger.ticks")
            .description("trigger ticks run by this instance while leading")
            .register(registry);
    this.ticksFailed =
        Counter.builder("carillon.trigger.ticks.failed")
            .description(
                "trigger ticks that failed (the database down or too slow), retried on the next"
                    + " tick")
            .register(registry);
    this.tickDuration =
        Buckets.TICK.register(
            registry, "carillon.trigger.tick.duration", "time one tick took, read to commit");
    this.publishOk = publish("ok");
    this.publishFailed = publish("failed");
    this.publishDeferred = publish("deferred");
    this.cursorMoved =
        Counter.builder("carillon.trigger.cursor.moved")
            .description("cursors moved because their zone's rules changed under them")
            .register(registry);
    Gauge.builder("carillon.trigger.leader", leader, AtomicInteger::get)
        .description("1 while this trigger instance leads, else 0")
        .register(registry);
    Gauge.builder(
            "carillon.trigger.dispatch.oldest.age", oldestUndispatchedMillis, a -> a.get() / 1000.0)
        .description(
            "seconds the oldest never-dispatched PENDING instance has waited (0 on a standby)")
        .register(registry);
    Gauge.builder("carillon.trigger.tasks.invalid", invalidTasks, AtomicInteger::get)
        .description("task definitions that fail validation and are not scheduled")
        .register(registry);
    // Present from the start, so that rate() and the alert rules see a zero before the first one.
    fireLagTimer(TaskLabel.OTHER);
    lateFires(TaskLabel.OTHER);
    decisions("paused", 0);
    decisions("exists", 0);
    skippedCounter("catchup", TaskLabel.OTHER);
    skippedCounter("overlap", TaskLabel.OTHER);
  }

  private Counter publish(String result) {
    return Counter.builder("carillon.trigger.publish")
        .description(
            "instance messages published: ok (acknowledged), failed, deferred (to the sweep)")
        .tag("result", result)
        .register(registry);
  }

  void tick(Duration took) {
    ticks.increment();
    tickDuration.record(took);
  }

  void inserted(String origin, String taskId, int n) {
    Counter.builder("carillon.trigger.instances.inserted")
        .description("PENDING instances created, by origin and task")
        .tag("origin", origin)
        .tag("task", tasks.of(taskId))
        .register(registry)
        .increment(n);
  }

  void tickFailed() {
    ticksFailed.increment();
  }

  /** Ticks that failed since start. */
  public double ticksFailed() {
    return ticksFailed.count();
  }

  void skipped(String reason, String taskId, int n) {
    skippedCounter(reason, tasks.of(taskId)).increment(n);
  }

  private Counter skippedCounter(String reason, String label) {
    return Counter.builder("carillon.trigger.instances.skipped")
        .description("SKIPPED instances created (never run), by reason (catchup, overlap) and task")
        .tag("reason", reason)
        .tag("task", label)
        .register(registry);
  }

  void decisions(String kind, int n) {
    Counter.builder("carillon.trigger.decisions")
        .description("trigger decisions that created no instance, by kind (paused, exists)")
        .tag("kind", kind)
        .register(registry)
        .increment(n);
  }

  void fireLag(String taskId, Duration lag) {
    fireLagTimer(tasks.of(taskId)).record(lag.isNegative() ? Duration.ZERO : lag);
  }

  void lateFire(String taskId) {
    lateFires(tasks.of(taskId)).increment();
  }

  private Timer fireLagTimer(String label) {
    return fireLagByLabel.computeIfAbsent(
        label,
        l ->
            Buckets.FIRE_LAG
                .timer(
                    "carillon.trigger.fire.lag",
                    "time from a cron fire time to its PENDING instance row, by task")
                .tag("task", l)
                .register(registry));
  }

  private Counter lateFires(String label) {
    return Counter.builder("carillon.trigger.fires.late")
        .description("fires whose instance was created later than the task's late-fire bound")
        .tag("task", label)
        .register(registry);
  }

  void cursorMoved() {
    cursorMoved.increment();
  }

  void invalidTasks(int n) {
    invalidTasks.set(n);
  }

  /** Counts published messages: {@code ok} acknowledged, {@code failed} not. */
  public void published(int ok, int failed) {
    publishOk.increment(ok);
    publishFailed.increment(failed);
  }

  /** Counts new instances left to the dispatch sweep because the dispatch queue was full. */
  public void deferred(int n) {
    publishDeferred.increment(n);
  }

  /**
   * Sets the age of the oldest PENDING instance never dispatched ({@code
   * carillon.trigger.dispatch.oldest.age}, seconds; 0 when there is none), as the leader's sweep
   * last saw it.
   */
  public void oldestUndispatched(Duration age) {
    oldestUndispatchedMillis.set(age.toMillis());
  }

  /** The dispatch backlog's age, as last set. */
  public Duration oldestUndispatched() {
    return Duration.ofMillis(oldestUndispatchedMillis.get());
  }

  /** Sets the leadership gauge. */
  public void leader(boolean leading) {
    leader.set(leading ? 1 : 0);
  }

  /** The registry the meters live in. */
  public MeterRegistry registry() {
    return registry;
  }

  /** The task label cap in force. */
  public TaskLabel tasks() {
    return tasks;
  }
}
