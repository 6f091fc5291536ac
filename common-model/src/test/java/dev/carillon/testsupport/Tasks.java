package dev.carillon.testsupport;

import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.DependencyTrigger;
import dev.carillon.model.task.TaskDefinition;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

/** Named builders for test data. */
public final class Tasks {
  private Tasks() {}

  /** The zone the test tasks fire in. */
  public static final ZoneId UTC = ZoneId.of("UTC");

  /** A daily UTC task at 08:00 running the {@code noop} handler. */
  public static TaskDefinition.Builder daily(String id) {
    return TaskDefinition.builder(id).handler("noop").cron("0 0 8 * * ?", UTC, WindowKind.DAILY);
  }

  /** A daily UTC task running the {@code noop} handler at the fire times of {@code cron}. */
  public static TaskDefinition.Builder daily(String id, String cron) {
    return TaskDefinition.builder(id).handler("noop").cron(cron, UTC, WindowKind.DAILY);
  }

  /** A task firing every {@code seconds} seconds, each fire its own window. */
  public static TaskDefinition.Builder everySeconds(String id, int seconds) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .cron("0/" + seconds + " * * * * ?", UTC, WindowKind.EVERY_FIRE);
  }

  /** A task that runs each {@code window} once every upstream's same window succeeded. */
  public static TaskDefinition.Builder after(String id, WindowKind window, String... upstreams) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .trigger(new DependencyTrigger(List.of(upstreams), window, ZoneOffset.UTC));
  }

  /** A PENDING instance for a one-day window named by {@code day} (e.g. {@code 2026-11-29}). */
  public static NewInstance pending(String taskId, String day, Duration timeout) {
    Instant start = Instant.parse(day + "T00:00:00Z");
    return NewInstance.pending(
        taskId,
        new Window(day, start, start.plus(Duration.ofDays(1))),
        start.plus(Duration.ofHours(8)),
        Origin.SCHEDULE,
        timeout,
        3);
  }

  /** A PENDING instance with an arbitrary window key and a fixed one-hour window. */
  public static NewInstance pendingKey(String taskId, String key, Duration timeout) {
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    return NewInstance.pending(
        taskId, new Window(key, start, start.plusSeconds(3600)), start, Origin.MANUAL, timeout, 3);
  }
}
