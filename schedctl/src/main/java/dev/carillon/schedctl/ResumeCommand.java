package dev.carillon.schedctl;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code schedctl resume TASK}. */
@Command(
    mixinStandardHelpOptions = true,
    name = "resume",
    description =
        "Resume a paused task: the trigger creates its windows again. Use backfill for windows missed while it was paused.")
final class ResumeCommand implements Callable<Integer> {
  private final Session session;

  @Parameters(paramLabel = "TASK")
  String task;

  ResumeCommand(Session session) {
    this.session = session;
  }

  @Override
  public Integer call() {
    return PauseCommand.setPaused(session, task, false);
  }
}
