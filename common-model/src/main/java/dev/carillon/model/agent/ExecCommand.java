package dev.carillon.model.agent;

import dev.carillon.model.task.Problem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * What an {@code exec} task runs: a command, started without a shell unless asked, in a working
 * directory, with an environment built from nothing but a few basics, these values and the named
 * variables of the worker's own environment (where secrets live: they never appear in the task).
 *
 * @param command the program and its arguments; with {@code shell}, exactly one element, the script
 *     {@code /bin/sh -c} runs
 * @param shell whether {@code command} is a shell script
 * @param dir the working directory (relative to the worker's), or empty for the worker's own
 * @param env variables set for the command, by name
 * @param passEnv names of the worker's environment variables passed on when set (e.g. an API key)
 * @param grace how long the process tree has between SIGTERM and SIGKILL when it is stopped
 * @throws IllegalArgumentException naming the field and the value when a rule of {@link #problems}
 *     is broken
 */
public record ExecCommand(
    List<String> command,
    boolean shell,
    Optional<String> dir,
    Map<String, String> env,
    List<String> passEnv,
    Duration grace) {

  /** The grace unless the task sets one. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(10);

  /** The longest grace a task may set. */
  public static final Duration MAX_GRACE = Duration.ofMinutes(5);

  /** A variable name a task may set or pass: a portable shell name. */
  public static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

  /** The prefix of the variables the worker sets to describe the run; a task sets none of them. */
  public static final String RESERVED_PREFIX = "CARILLON_";

  public ExecCommand {
    command = List.copyOf(command);
    dir = dir.filter(d -> !d.isBlank());
    env = Map.copyOf(new TreeMap<>(env));
    passEnv = List.copyOf(passEnv);
    List<Problem> problems = problems(command, shell, dir, env, passEnv, grace);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          String.join("; ", problems.stream().map(Problem::toString).toList()));
    }
  }

  /**
   * What is wrong with these values, each problem named by its path under {@code params.exec} (e.g.
   * {@code params.exec.command[0]}); empty when they make a command.
   */
  public static List<Problem> problems(
      List<String> command,
      boolean shell,
      Optional<String> dir,
      Map<String, String> env,
      List<String> passEnv,
      Duration grace) {
    String at = "params.exec.";
    List<Problem> problems = new ArrayList<>();
    if (command.isEmpty()) {
      problems.add(
          new Problem(
              at + "command",
              command,
              "must list the program and its arguments, e.g. [python3, agents/summarize.py]"));
    } else if (shell && command.size() != 1) {
      problems.add(
          new Problem(
              at + "command",
              command,
              "with shell: true, must be one script for /bin/sh -c, e.g. [\"grep x *.log | wc"
                  + " -l\"]"));
    }
    for (int i = 0; i < command.size(); i++) {
      String arg = command.get(i);
      if (arg == null || (i == 0 && arg.isBlank())) {
        problems.add(
            new Problem(
                at + "command[" + i + "]", arg, "must be " + (i == 0 ? "a program" : "text")));
      } else if (arg.indexOf('\0') >= 0) {
        problems.add(new Problem(at + "command[" + i + "]", arg, "must not contain a NUL"));
      }
    }
    env.forEach(
        (name, value) -> {
          nameProblem(at + "env." + name, name).ifPresent(problems::add);
          if (value == null || value.indexOf('\0') >= 0) {
            problems.add(new Problem(at + "env." + name, value, "must be text without a NUL"));
          }
        });
    for (int i = 0; i < passEnv.size(); i++) {
      nameProblem(at + "passEnv[" + i + "]", passEnv.get(i)).ifPresent(problems::add);
    }
    if (grace == null || grace.isNegative() || grace.compareTo(MAX_GRACE) > 0) {
      problems.add(new Problem(at + "grace", grace, "must be between 0s and 5m"));
    }
    return problems;
  }

  private static Optional<Problem> nameProblem(String field, String name) {
    if (name == null || !ENV_NAME.matcher(name).matches()) {
      return Optional.of(
          new Problem(field, name, "must be a variable name matching " + ENV_NAME.pattern()));
    }
    if (name.startsWith(RESERVED_PREFIX)) {
      return Optional.of(
          new Problem(
              field, name, "names starting with " + RESERVED_PREFIX + " are set by the worker"));
    }
    return Optional.empty();
  }

  /** The program and arguments to start: {@code command}, or {@code /bin/sh -c script}. */
  public List<String> argv() {
    return shell ? List.of("/bin/sh", "-c", command.get(0)) : command;
  }
}
