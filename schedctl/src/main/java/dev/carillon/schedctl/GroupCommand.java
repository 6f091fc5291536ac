package dev.carillon.schedctl;

import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that only groups subcommands ({@code get}, {@code config}, {@code delete}, {@code
 * token}): called on its own, it prints its usage to stderr and fails as bad input.
 */
abstract class GroupCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return Schedctl.BAD_INPUT;
  }
}
