package dev.carillon.model.task;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.schedule.CronSchedule;
import dev.carillon.model.schedule.FireTime;
import dev.carillon.model.schedule.WindowKind;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A time trigger: a Quartz cron expression with seconds, evaluated in an IANA zone (the
 * schedule's), and the window kind that turns each fire time into a window key.
 *
 * @param schedule the expression and its zone
 * @param window the window kind of each fire time
 * @throws InvalidTaskException naming {@code schedule.cron} or {@code schedule.window} when missing
 */
public record CronTrigger(CronSchedule schedule, WindowKind window) implements TimeTrigger {
  public CronTrigger {
    List<Problem> problems = new ArrayList<>();
    TaskRules.required(problems, "schedule.cron", schedule);
    TaskRules.required(problems, "schedule.window", window);
    TaskRules.throwIfAny(null, problems);
  }

  /**
   * Parses {@code expression} in {@code zone}.
   *
   * @throws InvalidTaskException naming {@code schedule.cron} and the expression when it does not
   *     parse, or a missing part
   */
  public static CronTrigger of(String expression, ZoneId zone, WindowKind window) {
    List<Problem> problems = new ArrayList<>();
    TaskRules.required(problems, "schedule.zone", zone);
    CronSchedule schedule = null;
    if (zone != null) {
      try {
        schedule = CronSchedule.parse(expression, zone);
      } catch (InvalidValueException e) {
        problems.add(e.problem());
      }
    }
    TaskRules.throwIfAny(null, problems);
    return new CronTrigger(schedule, window);
  }

  @Override
  public TriggerKind kind() {
    return TriggerKind.CRON;
  }

  public String cron() {
    return schedule.expression();
  }

  @Override
  public ZoneId zone() {
    return schedule.zone();
  }

  @Override
  public List<FireTime> fireTimesDetailed(Instant fromExclusive, Instant upToInclusive, int limit) {
    return schedule.fireTimesDetailed(fromExclusive, upToInclusive, limit);
  }

  @Override
  public List<Instant> fireTimes(Instant fromExclusive, Instant upToInclusive, int limit) {
    return schedule.fireTimes(fromExclusive, upToInclusive, limit);
  }

  @Override
  public Optional<Instant> nextAfter(Instant after) {
    return schedule.nextAfter(after);
  }

  @Override
  public String describe() {
    return "cron " + cron() + " in " + zone();
  }
}
