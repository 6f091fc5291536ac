package dev.carillon.trigger.condition;

import dev.carillon.api.AgentCondition;
import dev.carillon.api.ConditionContext;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test condition, found by ServiceLoader: answers from a per-task script ({@code true}/{@code
 * false} in order), {@code false} when the script is empty, and counts its calls.
 */
public final class ScriptedCondition implements AgentCondition {
  static final Map<String, Deque<Boolean>> SCRIPTS = new ConcurrentHashMap<>();
  static final Map<String, Integer> CALLS = new ConcurrentHashMap<>();

  static void script(String taskId, Boolean... answers) {
    SCRIPTS.put(taskId, new ArrayDeque<>(java.util.List.of(answers)));
    CALLS.put(taskId, 0);
  }

  @Override
  public String type() {
    return "scripted";
  }

  @Override
  public boolean test(ConditionContext context) {
    CALLS.merge(context.taskId(), 1, Integer::sum);
    Boolean next = SCRIPTS.getOrDefault(context.taskId(), new ArrayDeque<>()).poll();
    return next != null && next;
  }
}
