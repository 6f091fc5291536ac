package dev.carillon.model.task;

import dev.carillon.model.CarillonException;
import java.util.List;
import java.util.stream.Collectors;

/** A task definition (or part of one) that breaks a rule; lists every problem found. */
public final class InvalidTaskException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final String taskId;
  private final transient List<Problem> problems;

  public InvalidTaskException(String taskId, List<Problem> problems) {
    super(
        "invalid task "
            + (taskId == null ? "<no id>" : "'" + taskId + "'")
            + ": "
            + problems.stream().map(Problem::toString).collect(Collectors.joining("; ")));
    this.taskId = taskId;
    this.problems = List.copyOf(problems);
  }

  public InvalidTaskException(String taskId, Problem problem) {
    this(taskId, List.of(problem));
  }

  public String taskId() {
    return taskId;
  }

  public List<Problem> problems() {
    return problems;
  }
}
