package dev.carillon.schedctl;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code schedctl completion bash}: prints a completion script for bash (and zsh). */
@Command(
    mixinStandardHelpOptions = true,
    name = "completion",
    description = {
      "Print a shell completion script.",
      "bash: source <(schedctl completion bash)   (zsh: autoload -U +X bashcompinit && bashcompinit"
          + " first)"
    })
final class CompletionCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  private final Session session;

  @Parameters(paramLabel = "SHELL", description = "bash (the script also works in zsh)")
  String shell;

  CompletionCommand(Session session) {
    this.session = session;
  }

  @Override
  public Integer call() {
    if (!shell.equals("bash") && !shell.equals("zsh")) {
      throw CliException.badInput("schedctl: shell '" + shell + "' must be bash or zsh");
    }
    session.out.print(AutoComplete.bash("schedctl", spec.root().commandLine()));
    return Schedctl.OK;
  }
}
