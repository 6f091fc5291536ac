package dev.carillon.model.task;

import dev.carillon.model.Durations;
import dev.carillon.model.schedule.WindowKind;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * A condition trigger: a plugin predicate ({@code dev.carillon.api.AgentCondition} of {@code type})
 * polled every {@code every} within each window of the task; the window's one instance is created
 * the first time the predicate has held for {@code debounce} consecutive polls.
 *
 * @param type the condition plugin's type, like a handler name
 * @param every the poll interval, 1 s to 24 h; polls align to multiples of it from the window start
 * @param debounce consecutive true polls needed, 1 to {@value #MAX_DEBOUNCE}
 * @param paramsJson a JSON object handed to the condition (null is {@code {}})
 * @param window the window kind polled within
 * @param zone the zone windows are computed in
 * @throws InvalidTaskException naming each broken field ({@code condition.every}, ...) and its
 *     value
 */
public record ConditionTrigger(
    String type, Duration every, int debounce, String paramsJson, WindowKind window, ZoneId zone)
    implements Trigger {
  public static final Duration MIN_EVERY = Duration.ofSeconds(1);
  public static final Duration MAX_EVERY = Duration.ofHours(24);
  public static final int MAX_DEBOUNCE = 100;

  public ConditionTrigger {
    List<Problem> problems = new ArrayList<>();
    TaskRules.check(problems, "condition.type", type, TaskRules.conditionType(type));
    TaskRules.check(
        problems,
        "condition.every",
        every == null ? null : Durations.format(every),
        TaskRules.every(every));
    TaskRules.check(problems, "condition.debounce", debounce, TaskRules.debounce(debounce));
    paramsJson = paramsJson == null ? "{}" : paramsJson;
    TaskRules.params("condition.params", paramsJson).ifPresent(problems::add);
    TaskRules.required(problems, "schedule.window", window);
    TaskRules.required(problems, "schedule.zone", zone);
    TaskRules.throwIfAny(null, problems);
  }

  @Override
  public TriggerKind kind() {
    return TriggerKind.CONDITION;
  }
}
