package dev.carillon.spec;

import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.Problem;
import dev.carillon.model.task.Trigger;
import dev.carillon.model.task.TriggerKind;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The settings of a one-shot, dependency, event or condition trigger as JSON, in the shape of a
 * task spec: {@code {"at":"2026-12-24T07:00:00Z"}}, {@code {"after":[...]}}, {@code
 * {"event":{...}}} or {@code {"condition":{...}}} (the store's {@code spec} column). A cron trigger
 * has none: its expression, zone and window kind have columns of their own. Read with the spec
 * reader's rules and messages. Thread-safe.
 */
public final class TriggerJson {
  private TriggerJson() {}

  /** The trigger's settings as JSON, or null for a {@link CronTrigger}. */
  public static String toJson(Trigger trigger) {
    Map<String, Object> spec = TriggerSpec.toSpec(trigger);
    return spec.isEmpty() ? null : Json.write(spec);
  }

  /**
   * Reads the settings of a non-cron trigger written by {@link #toJson}.
   *
   * @param taskId the task, for the exception
   * @param kind {@link TriggerKind#AT}, {@link TriggerKind#DEPENDENCY}, {@link TriggerKind#EVENT}
   *     or {@link TriggerKind#CONDITION}
   * @param window the task's window kind, not null
   * @param zone the task's zone, not null
   * @throws InvalidTaskException listing every problem, each named as in a task spec ({@code
   *     event.topic}, {@code after[1]})
   */
  public static Trigger fromJson(
      String taskId, TriggerKind kind, String json, WindowKind window, ZoneId zone) {
    Objects.requireNonNull(window, "window");
    Objects.requireNonNull(zone, "zone");
    String key =
        switch (kind) {
          case AT -> "at";
          case DEPENDENCY -> "after";
          case EVENT -> "event";
          case CONDITION -> "condition";
          case CRON -> throw new IllegalArgumentException("a cron trigger has no JSON settings");
        };
    if (json == null || json.isBlank()) {
      throw new InvalidTaskException(
          taskId, new Problem(key, null, "is required for a " + kind + " trigger"));
    }
    NodeParser.Parsed parsed = NodeParser.parse(json, Format.JSON);
    if (parsed.error().isPresent() || !(parsed.root().orElse(null) instanceof Node.Mapping root)) {
      throw new InvalidTaskException(
          taskId, new Problem("spec", json, "is not a JSON object holding '" + key + "'"));
    }
    Problems problems = new Problems();
    problems.unknownKeys(
        root,
        "",
        Set.of(key),
        other -> "a " + kind + " trigger has only '" + key + "' (one trigger per task)");
    Node settings = root.get(key);
    Optional<? extends Trigger> trigger;
    if (settings == null) {
      problems.add(key, root, null, "is required for a " + kind + " trigger");
      trigger = Optional.empty();
    } else {
      trigger =
          switch (kind) {
            case AT -> TriggerSpec.at(settings, window, zone, problems);
            case DEPENDENCY -> TriggerSpec.dependency(taskId, settings, window, zone, problems);
            case EVENT -> TriggerSpec.event(settings, window, zone, problems);
            default -> TriggerSpec.condition(settings, window, zone, problems);
          };
    }
    if (!problems.isEmpty() || trigger.isEmpty()) {
      throw new InvalidTaskException(taskId, problems.problems());
    }
    return trigger.get();
  }
}
