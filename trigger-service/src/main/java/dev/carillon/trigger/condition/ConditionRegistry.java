package dev.carillon.trigger.condition;

import dev.carillon.api.AgentCondition;
import dev.carillon.api.AgentTask;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * The {@link AgentCondition} plugins on the class path, by type, found with {@link ServiceLoader}.
 * Refuses duplicate and malformed types, like the worker's plugin registry.
 */
public final class ConditionRegistry {
  private final Map<String, AgentCondition> byType;

  private ConditionRegistry(Map<String, AgentCondition> byType) {
    this.byType = Map.copyOf(byType);
  }

  /** The conditions visible to {@code loader}. */
  public static ConditionRegistry load(ClassLoader loader) {
    return of(ServiceLoader.load(AgentCondition.class, loader).stream().map(p -> p.get()).toList());
  }

  /**
   * A registry of exactly {@code conditions}.
   *
   * @throws IllegalArgumentException on a duplicate type or one that breaks {@link
   *     AgentTask#TYPE_PATTERN}
   */
  public static ConditionRegistry of(Collection<AgentCondition> conditions) {
    Map<String, AgentCondition> out = new TreeMap<>();
    for (AgentCondition c : conditions) {
      String type = c.type();
      if (type == null || !type.matches(AgentTask.TYPE_PATTERN)) {
        throw new IllegalArgumentException(
            c.getClass().getName() + " has an invalid condition type '" + type + "'");
      }
      AgentCondition before = out.putIfAbsent(type, c);
      if (before != null) {
        throw new IllegalArgumentException(
            "condition type '"
                + type
                + "' is provided by both "
                + before.getClass().getName()
                + " and "
                + c.getClass().getName());
      }
    }
    return new ConditionRegistry(out);
  }

  /** The condition of {@code type}, if loaded. */
  public Optional<AgentCondition> get(String type) {
    return Optional.ofNullable(byType.get(type));
  }

  /** The loaded types, sorted. */
  public Collection<String> types() {
    return byType.keySet();
  }
}
