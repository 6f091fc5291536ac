package dev.carillon.spec;

import dev.carillon.model.CarillonException;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A spec text that yields no definitions: lists every problem found, each with its position, field
 * and value. Nothing of such a text may be applied.
 */
public final class InvalidSpecException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final transient List<SpecProblem> problems;

  public InvalidSpecException(List<SpecProblem> problems) {
    super(problems.stream().map(SpecProblem::text).collect(Collectors.joining("\n")));
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("an invalid spec has at least one problem");
    }
    this.problems = List.copyOf(problems);
  }

  /** Every problem, in the order of the text. */
  public List<SpecProblem> problems() {
    return problems;
  }
}
