package dev.carillon.model.tuning;

import dev.carillon.model.CarillonException;
import dev.carillon.model.task.Problem;
import java.util.List;
import java.util.stream.Collectors;

/** A config-topic record that must not be applied: names the key and every problem found. */
public final class InvalidTuningException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final String key;
  private final transient List<Problem> problems;

  public InvalidTuningException(String key, List<Problem> problems) {
    super(
        "invalid value for "
            + key
            + ": "
            + problems.stream().map(Problem::toString).collect(Collectors.joining("; ")));
    this.key = key;
    this.problems = List.copyOf(problems);
  }

  /** The record key as given. */
  public String key() {
    return key;
  }

  /** What is wrong, each with its field and value. */
  public List<Problem> problems() {
    return problems;
  }
}
