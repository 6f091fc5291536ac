package dev.carillon.schedctl;

import dev.carillon.model.CarillonException;
import java.util.List;

/**
 * A command that cannot do what was asked: carries the exit code and the lines to print on stderr,
 * one per problem.
 */
public final class CliException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final int exitCode;
  private final transient List<String> lines;

  private CliException(int exitCode, List<String> lines, Throwable cause) {
    super(String.join("; ", lines), cause);
    this.exitCode = exitCode;
    this.lines = List.copyOf(lines);
  }

  /** Bad input (exit {@value Schedctl#BAD_INPUT}), one line per problem. */
  public static CliException badInput(List<String> lines) {
    return new CliException(Schedctl.BAD_INPUT, lines, null);
  }

  /** Bad input (exit {@value Schedctl#BAD_INPUT}). */
  public static CliException badInput(String line) {
    return badInput(List.of(line));
  }

  /**
   * A dependency that could not be reached or failed (exit {@value Schedctl#UNREACHABLE}).
   *
   * @param line names the dependency and where it was looked for, e.g. {@code cannot reach
   *     PostgreSQL at jdbc:postgresql://db:5432/carillon: Connection refused}
   */
  public static CliException unreachable(String line, Throwable cause) {
    return new CliException(Schedctl.UNREACHABLE, List.of(line), cause);
  }

  /** The process exit code. */
  public int exitCode() {
    return exitCode;
  }

  /** What to print on stderr, one line each. */
  public List<String> lines() {
    return lines;
  }
}
