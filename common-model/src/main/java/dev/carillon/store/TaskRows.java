package dev.carillon.store;

import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.Problem;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.Trigger;
import dev.carillon.model.task.TriggerKind;
import dev.carillon.spec.RetryPolicyJson;
import dev.carillon.spec.TriggerJson;
import dev.carillon.store.jooq.tables.records.TaskDefinitionRecord;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * A {@code task_definition} row and a {@link TaskDefinition}: written from the sealed trigger (its
 * kind, the cron column for a cron trigger, the {@code spec} JSON for the others), and read back by
 * {@code trigger_kind}, every column checked again, because a row may have been edited by hand.
 */
final class TaskRows {
  private TaskRows() {}

  static TaskDefinitionRecord toRecord(TaskDefinition d) {
    TaskDefinitionRecord r = new TaskDefinitionRecord();
    r.setTaskId(d.id());
    r.setHandler(d.handler());
    r.setQueue(d.queue());
    Trigger trigger = d.trigger();
    r.setTriggerKind(trigger.kind().name());
    r.setCron(trigger instanceof CronTrigger cron ? cron.cron() : null);
    r.setZone(trigger.zone().getId());
    r.setWindowKind(trigger.window().name());
    r.setSpec(TriggerJson.toJson(trigger));
    r.setOverlapPolicy(d.overlap().name());
    r.setCatchupMs(d.catchup().toMillis());
    r.setTimeoutMs(d.timeout().toMillis());
    r.setRetryPolicy(RetryPolicyJson.toJson(d.retry()));
    r.setParams(d.paramsJson());
    r.setPaused(d.paused());
    r.setVersion(d.version());
    return r;
  }

  /** The row's definition, or every problem with it. */
  static LoadedTask load(TaskDefinitionRecord r) {
    String id = r.getTaskId();
    List<Problem> problems = new ArrayList<>();
    ZoneId zone = column(problems, "schedule.zone", r.getZone(), ZoneId::of, "an IANA time zone");
    WindowKind window =
        column(
            problems,
            "schedule.window",
            r.getWindowKind(),
            WindowKind::valueOf,
            names(WindowKind.values()));
    OverlapPolicy overlap =
        column(
            problems,
            "overlap",
            r.getOverlapPolicy(),
            OverlapPolicy::valueOf,
            names(OverlapPolicy.values()));
    TriggerKind kind =
        column(
            problems,
            "trigger_kind",
            r.getTriggerKind(),
            TriggerKind::valueOf,
            names(TriggerKind.values()));
    RetryPolicy retry = null;
    try {
      retry = RetryPolicyJson.fromJson(id, r.getRetryPolicy());
    } catch (InvalidTaskException e) {
      problems.addAll(e.problems());
    }
    Trigger trigger = null;
    if (kind != null && zone != null && window != null) {
      try {
        trigger = trigger(id, kind, r, zone, window);
      } catch (InvalidTaskException e) {
        problems.addAll(e.problems());
      }
    }
    try {
      if (!problems.isEmpty()) {
        throw new InvalidTaskException(id, problems);
      }
      return LoadedTask.valid(
          new TaskDefinition(
              id,
              r.getHandler(),
              r.getQueue(),
              trigger,
              overlap,
              Duration.ofMillis(r.getCatchupMs()),
              Duration.ofMillis(r.getTimeoutMs()),
              retry,
              r.getParams(),
              r.getPaused(),
              r.getVersion()));
    } catch (InvalidTaskException e) {
      return LoadedTask.invalid(id, r.getVersion(), e);
    }
  }

  private static Trigger trigger(
      String id, TriggerKind kind, TaskDefinitionRecord r, ZoneId zone, WindowKind window) {
    boolean cron = kind == TriggerKind.CRON;
    if (cron ? r.getSpec() != null : r.getCron() != null) {
      throw new InvalidTaskException(
          id,
          new Problem(
              "trigger",
              kind + " with " + (cron ? "spec " + r.getSpec() : "cron " + r.getCron()),
              "a task has exactly one trigger: schedule.cron, at, after, event or condition"));
    }
    return cron
        ? CronTrigger.of(r.getCron(), zone, window)
        : TriggerJson.fromJson(id, kind, r.getSpec(), window, zone);
  }

  private static <T> T column(
      List<Problem> problems, String field, String value, Function<String, T> parse, String rule) {
    if (value == null) {
      problems.add(new Problem(field, null, "is required"));
      return null;
    }
    try {
      return parse.apply(value.trim());
    } catch (IllegalArgumentException | DateTimeException e) {
      problems.add(new Problem(field, value, "must be " + rule));
      return null;
    }
  }

  private static String names(Enum<?>[] values) {
    return "one of " + String.join(", ", Arrays.stream(values).map(v -> v.name()).toList());
  }
}
