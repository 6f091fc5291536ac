package dev.carillon.model.task;

import dev.carillon.model.schedule.CronSchedule;
import dev.carillon.model.schedule.WindowKind;
import java.time.ZoneId;
import java.util.Objects;

/**
 * A time trigger: a Quartz cron expression with seconds, evaluated in an IANA zone, and the window
 * kind that turns each fire time into a window key.
 */
public record CronTrigger(CronSchedule schedule, WindowKind window) {
  public CronTrigger {
    Objects.requireNonNull(schedule, "schedule");
    Objects.requireNonNull(window, "window");
  }

  public String cron() {
    return schedule.expression();
  }

  public ZoneId zone() {
    return schedule.zone();
  }
}
