package dev.carillon.model;

import dev.carillon.model.task.Problem;

/** One value that breaks a rule; the problem names the field and the value. */
public final class InvalidValueException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final transient Problem problem;

  public InvalidValueException(Problem problem) {
    super(problem.toString());
    this.problem = problem;
  }

  public Problem problem() {
    return problem;
  }
}
