package dev.carillon.model.task;

import java.util.ArrayList;
import java.util.List;

/**
 * What a worker needs of a task to run one of its instances: the handler that runs it and the
 * parameters it is given. The trigger settings are not part of it, so an instance that exists runs
 * even when its task's schedule was later edited by hand into something invalid, and a worker does
 * not read and check a whole {@link TaskDefinition} (sixteen columns, two JSON documents, the
 * trigger) on every fire's path.
 *
 * @param taskId the task
 * @param handler the {@code AgentTask.type()} that runs it; checked as in {@link TaskDefinition}
 * @param paramsJson the JSON object handed to the agent; checked as in {@link TaskDefinition}
 * @param version the version of the definition this was read from
 * @throws InvalidTaskException naming the field and the value when the handler or the params break
 *     a rule of {@link TaskDefinition}
 */
public record RunSpec(String taskId, String handler, String paramsJson, long version) {
  public RunSpec {
    List<Problem> problems = new ArrayList<>();
    TaskRules.check(problems, "handler", handler, TaskRules.handler(handler));
    paramsJson = paramsJson == null ? "{}" : paramsJson;
    TaskRules.params("params", paramsJson).ifPresent(problems::add);
    TaskRules.throwIfAny(taskId, problems);
  }

  /** The part of {@code definition} a run needs. */
  public static RunSpec of(TaskDefinition definition) {
    return new RunSpec(
        definition.id(), definition.handler(), definition.paramsJson(), definition.version());
  }
}
