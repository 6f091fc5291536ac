package dev.carillon.spec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.carillon.model.agent.BuiltInHandler;
import dev.carillon.model.task.Problem;
import dev.carillon.model.task.TaskRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The params a run-now gives one instance: a JSON object whose <b>top-level fields replace the
 * task's fields of the same name</b> for that instance only (a shallow merge; a field the override
 * does not name keeps the task's value, a nested object is replaced whole, and {@code null} is a
 * value like any other). Replacing the whole object was not chosen because an agent's params
 * usually mix settings that never change per run (a model, an output folder) with the input of one
 * run (a user, a date): a caller names only what differs.
 *
 * <p>The override may not name {@code exec} or {@code http}: those are the settings of a built-in
 * agent kind (the command a worker starts, the URL it calls) and belong to the task, which an
 * operator applies and reviews; a run-now changes what an agent is given, not which program runs.
 * Pure and thread-safe.
 */
public final class ParamsOverride {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private ParamsOverride() {}

  /**
   * What is wrong with an override, each problem naming {@code params} (or {@code params.exec},
   * {@code params.http}) and the value: it must be one JSON object of at most {@link
   * dev.carillon.model.task.TaskDefinition#MAX_PARAMS_BYTES} bytes that names no agent-kind
   * setting.
   */
  public static List<Problem> check(String json) {
    List<Problem> problems = new ArrayList<>();
    Optional<Problem> shape = TaskRules.params("params", json);
    if (shape.isPresent()) {
      problems.add(shape.get());
      return problems;
    }
    JsonNode node = read(json);
    for (BuiltInHandler b : BuiltInHandler.values()) {
      String key = b.handler();
      if (node.has(key)) {
        problems.add(
            new Problem(
                "params." + key,
                node.get(key).toString(),
                "may not be overridden by a run: the "
                    + key
                    + " settings belong to the task (apply a changed task instead)"));
      }
    }
    return problems;
  }

  /**
   * The params an instance runs with: {@code taskParams} with each top-level field of {@code
   * override} put over it. Both must be JSON objects (as {@link #check} and the task's own rules
   * make them); a null override leaves the task's params as they are.
   */
  public static String merge(String taskParams, String override) {
    if (override == null) {
      return taskParams;
    }
    ObjectNode merged = (ObjectNode) read(taskParams == null ? "{}" : taskParams);
    merged.setAll((ObjectNode) read(override));
    return merged.toString();
  }

  private static JsonNode read(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON (checked before): " + e.getOriginalMessage(), e);
    }
  }
}
