package dev.carillon.trigger;

import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.Topics;
import dev.carillon.model.Durations;
import dev.carillon.trigger.dispatch.Dispatcher;
import dev.carillon.trigger.plan.PlannerSettings;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The trigger's own settings, besides {@link dev.carillon.config.CommonSettings}.
 *
 * <table>
 *   <caption>keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>trigger.tick-interval</td><td>1s</td><td>time between ticks, aligned to its multiples on the clock</td></tr>
 *   <tr><td>trigger.redispatch-after</td><td>60s</td><td>a PENDING instance dispatched longer ago is published again</td></tr>
 *   <tr><td>trigger.dispatch-sweep</td><td>5s</td><td>how often undispatched instances are looked for</td></tr>
 *   <tr><td>trigger.ack-timeout</td><td>10s</td><td>how long one publish waits for Kafka</td></tr>
 *   <tr><td>trigger.max-dispatch-backlog</td><td>100000</td><td>instances waiting for Kafka in
 *       memory at most; the rest wait in the database for the sweep</td></tr>
 *   <tr><td>trigger.topic</td><td>carillon.instances</td><td>where instance ids are published</td></tr>
 *   <tr><td>trigger.max-windows-per-task</td><td>100</td><td>fire times one task has evaluated per tick</td></tr>
 *   <tr><td>trigger.on-time-grace</td><td>10s</td><td>older fire times were missed (origin CATCHUP)</td></tr>
 *   <tr><td>trigger.max-clock-skew</td><td>2s</td><td>an offset between this host's clock and
 *       PostgreSQL's beyond this is logged and reported (the trigger ticks on PostgreSQL's time
 *       either way)</td></tr>
 *   <tr><td>trigger.create-ahead</td><td>0s</td><td>ticks run this long before each multiple of
 *       the tick interval and create the windows due at it, which the dispatcher publishes on the
 *       instant: the fire lag loses the tick's insert and commit; less than the tick interval</td></tr>
 * </table>
 */
public record TriggerSettings(
    Duration tickInterval,
    Duration redispatchAfter,
    Duration dispatchSweep,
    Duration ackTimeout,
    int maxDispatchBacklog,
    String topic,
    int maxWindowsPerTask,
    Duration onTimeGrace,
    Duration maxClockSkew,
    Duration createAhead) {

  public static final Duration DEFAULT_TICK_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_REDISPATCH_AFTER = Duration.ofSeconds(60);
  public static final Duration DEFAULT_DISPATCH_SWEEP = Duration.ofSeconds(5);
  public static final Duration DEFAULT_MAX_CLOCK_SKEW = Duration.ofSeconds(2);

  /**
   * Every key {@link #from} reads, in the order of the table above (the trigger also reads {@link
   * dev.carillon.config.CommonSettings#KEYS}). Deploy files and the operator guide are checked
   * against it; a test holds it to what {@link #from} reads.
   */
  public static final List<String> KEYS =
      List.of(
          "trigger.tick-interval",
          "trigger.redispatch-after",
          "trigger.dispatch-sweep",
          "trigger.ack-timeout",
          "trigger.max-dispatch-backlog",
          "trigger.topic",
          "trigger.max-windows-per-task",
          "trigger.on-time-grace",
          "trigger.max-clock-skew",
          "trigger.create-ahead");

  public TriggerSettings {
    Objects.requireNonNull(tickInterval, "tickInterval");
    Objects.requireNonNull(redispatchAfter, "redispatchAfter");
    Objects.requireNonNull(dispatchSweep, "dispatchSweep");
    Objects.requireNonNull(ackTimeout, "ackTimeout");
    Objects.requireNonNull(onTimeGrace, "onTimeGrace");
    Objects.requireNonNull(maxClockSkew, "maxClockSkew");
    Objects.requireNonNull(createAhead, "createAhead");
    if (createAhead.isNegative() || createAhead.compareTo(tickInterval) >= 0) {
      throw new IllegalArgumentException(
          "trigger.create-ahead must be at least 0s and less than trigger.tick-interval ("
              + Durations.format(tickInterval)
              + "), was "
              + Durations.format(createAhead));
    }
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("trigger.topic must not be blank, was '" + topic + "'");
    }
  }

  /**
   * @throws dev.carillon.config.ConfigException naming the key and value when one is wrong
   */
  public static TriggerSettings from(Config c) {
    Duration tickInterval =
        c.duration(
            "trigger.tick-interval",
            DEFAULT_TICK_INTERVAL,
            Duration.ofMillis(100),
            Duration.ofMinutes(1));
    Duration createAhead =
        c.duration("trigger.create-ahead", Duration.ZERO, Duration.ZERO, Duration.ofMinutes(1));
    try {
      return new TriggerSettings(
          tickInterval,
          c.duration(
              "trigger.redispatch-after",
              DEFAULT_REDISPATCH_AFTER,
              Duration.ofSeconds(1),
              Duration.ofHours(1)),
          c.duration(
              "trigger.dispatch-sweep",
              DEFAULT_DISPATCH_SWEEP,
              Duration.ofMillis(100),
              Duration.ofMinutes(10)),
          c.duration(
              "trigger.ack-timeout",
              InstancePublisher.DEFAULT_ACK_TIMEOUT,
              Duration.ofSeconds(1),
              Duration.ofMinutes(2)),
          c.integer(
              "trigger.max-dispatch-backlog",
              Dispatcher.MAX_BACKLOG,
              1,
              Dispatcher.MAX_BACKLOG * 10),
          c.string("trigger.topic", Topics.INSTANCES),
          c.integer(
              "trigger.max-windows-per-task",
              PlannerSettings.DEFAULT_MAX_WINDOWS_PER_TASK,
              1,
              10_000),
          c.duration(
              "trigger.on-time-grace",
              PlannerSettings.DEFAULT_ON_TIME_GRACE,
              Duration.ZERO,
              Duration.ofMinutes(10)),
          c.duration(
              "trigger.max-clock-skew",
              DEFAULT_MAX_CLOCK_SKEW,
              Duration.ofMillis(10),
              Duration.ofHours(1)),
          createAhead);
    } catch (IllegalArgumentException e) {
      // The checks across keys (trigger.create-ahead against trigger.tick-interval) are the
      // constructor's, so that every instance holds them.
      throw new ConfigException(e);
    }
  }

  /** The planner's limits, with {@code actor} for the event log. */
  public PlannerSettings planner(String actor) {
    return new PlannerSettings(maxWindowsPerTask, onTimeGrace, actor);
  }
}
