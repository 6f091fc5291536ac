package dev.carillon.testsupport;

import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.task.TaskDefinition;
import java.time.Duration;
import java.time.Instant;

/** Named builders for test data. */
public final class Tasks {
  private Tasks() {}

  /** A daily UTC task at 08:00 running the {@code noop} handler. */
  public static TaskDefinition.Builder daily(String id) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .cron("0 0 8 * * ?")
        .zone("UTC")
        .window("DAILY");
  }

  /** A task firing every {@code seconds} seconds, each fire its own window. */
  public static TaskDefinition.Builder everySeconds(String id, int seconds) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .cron("0/" + seconds + " * * * * ?")
        .zone("UTC")
        .window("EVERY_FIRE");
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
