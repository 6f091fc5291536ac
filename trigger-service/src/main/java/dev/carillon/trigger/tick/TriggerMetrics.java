package dev.carillon.trigger.tick;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The trigger's meters, named {@code carillon.trigger.*}. Thread-safe.
 *
 * <ul>
 *   <li>{@code ticks}, {@code tick.duration}: ticks run and how long each took
 *   <li>{@code ticks.failed}: ticks that failed (the database down or too slow), retried on the
 *       next tick
 *   <li>{@code instances.created{origin}}: PENDING rows created
 *   <li>{@code instances.skipped{reason}}: SKIPPED rows created ({@code catchup}, {@code overlap})
 *   <li>{@code decisions{kind}}: decisions that created nothing
 *   <li>{@code fire.lag}: now − fire time when a PENDING row was created
 *   <li>{@code publish{result}}: instance messages acknowledged ({@code ok}) or not ({@code
 *       failed})
 *   <li>{@code dispatch.oldest.age}: seconds the oldest never-dispatched PENDING instance has
 *       waited (the leader's sweep measures it; alert when it grows past a minute: Kafka is away)
 *   <li>{@code dispatch.backlog}: instances waiting in the dispatch queue (its bound is {@code
 *       trigger.max-dispatch-backlog})
 *   <li>{@code leader}: 1 while this instance leads
 *   <li>{@code tasks.invalid}: task rows that fail validation
 *   <li>{@code cursor.moved}: cursors moved because their zone's rules changed under them
 * </ul>
 */
public final class TriggerMetrics {
  private final MeterRegistry registry;
  private final Counter ticks;
  private final Counter ticksFailed;
  private final Timer tickDuration;
  private final Timer fireLag;
  private final Counter publishOk;
  private final Counter publishFailed;
  private final Counter publishDeferred;
  private final AtomicInteger leader = new AtomicInteger();
  private final AtomicLong oldestUndispatchedMillis = new AtomicLong();
  private final AtomicInteger invalidTasks = new AtomicInteger();

  public TriggerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.ticks = registry.counter("carillon.trigger.ticks");
    this.ticksFailed = registry.counter("carillon.trigger.ticks.failed");
    this.tickDuration = registry.timer("carillon.trigger.tick.duration");
    this.fireLag = registry.timer("carillon.trigger.fire.lag");
    this.publishOk = registry.counter("carillon.trigger.publish", "result", "ok");
    this.publishFailed = registry.counter("carillon.trigger.publish", "result", "failed");
    this.publishDeferred = registry.counter("carillon.trigger.publish", "result", "deferred");
    registry.gauge("carillon.trigger.leader", leader);
    registry.gauge(
        "carillon.trigger.dispatch.oldest.age", oldestUndispatchedMillis, a -> a.get() / 1000.0);
    registry.gauge("carillon.trigger.tasks.invalid", invalidTasks);
  }

  void tick(Duration took) {
    ticks.increment();
    tickDuration.record(took);
  }

  void tickFailed() {
    ticksFailed.increment();
  }

  /** Ticks that failed since start. */
  public double ticksFailed() {
    return ticksFailed.count();
  }

  void created(String origin, int n) {
    registry.counter("carillon.trigger.instances.created", "origin", origin).increment(n);
  }

  void skipped(String reason, int n) {
    registry.counter("carillon.trigger.instances.skipped", "reason", reason).increment(n);
  }

  void decisions(String kind, int n) {
    registry.counter("carillon.trigger.decisions", "kind", kind).increment(n);
  }

  void fireLag(Duration lag) {
    fireLag.record(lag.isNegative() ? Duration.ZERO : lag);
  }

  void cursorMoved() {
    registry.counter("carillon.trigger.cursor.moved").increment();
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
}
