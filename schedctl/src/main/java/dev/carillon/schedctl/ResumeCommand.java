package dev.carillon.schedctl;

import dev.carillon.client.model.TaskStateView;
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
    if (session.remote()) {
      TaskStateView v = session.api().resume(task);
      Output out = session.output();
      if (out.json()) {
        out.printJson(v);
      } else {
        out.line(
            "task "
                + v.taskId()
                + (v.changed() ? " is now " : " was already ")
                + (v.paused() ? "paused" : "active")
                + " (version "
                + v.version()
                + ")");
      }
      return Schedctl.OK;
    }
    return PauseCommand.setPaused(session, task, false);
  }
}
