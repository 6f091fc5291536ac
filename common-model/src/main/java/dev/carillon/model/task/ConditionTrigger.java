package dev.carillon.model.task;

import java.time.Duration;
import java.util.Objects;

/**
 * A condition trigger: a plugin predicate ({@code dev.carillon.api.AgentCondition} of {@code type})
 * polled every {@code every} within each window of the task; the window's one instance is created
 * the first time the predicate has held for {@code debounce} consecutive polls.
 *
 * @param type the condition plugin's type, like a handler name
 * @param every the poll interval, at least 1 s; polls align to multiples of it from the window
 *     start
 * @param debounce consecutive true polls needed, 1 to 100
 * @param paramsJson a JSON object handed to the condition
 */
public record ConditionTrigger(String type, Duration every, int debounce, String paramsJson) {
  public static final Duration MIN_EVERY = Duration.ofSeconds(1);
  public static final int MAX_DEBOUNCE = 100;

  public ConditionTrigger {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(every, "every");
    Objects.requireNonNull(paramsJson, "paramsJson");
    if (!TaskDefinition.HANDLER_PATTERN.matcher(type).matches()) {
      throw new IllegalArgumentException(
          "type must match " + TaskDefinition.HANDLER_PATTERN.pattern());
    }
    if (every.compareTo(MIN_EVERY) < 0) {
      throw new IllegalArgumentException("every must be at least 1s");
    }
    if (debounce < 1 || debounce > MAX_DEBOUNCE) {
      throw new IllegalArgumentException("debounce must be between 1 and " + MAX_DEBOUNCE);
    }
  }
}
