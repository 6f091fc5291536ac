package dev.carillon.schedctl;

import dev.carillon.client.model.TaskStateView;
import dev.carillon.store.LoadedTask;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code schedctl pause TASK}: the trigger creates no windows for it until resumed. */
@Command(
    mixinStandardHelpOptions = true,
    name = "pause",
    description =
        "Pause a task: the trigger creates no new windows for it. Instances that exist keep going; cancel them to stop them.")
final class PauseCommand implements Callable<Integer> {
  private final Session session;

  @Parameters(paramLabel = "TASK")
  String task;

  PauseCommand(Session session) {
    this.session = session;
  }

  @Override
  public Integer call() {
    return setPaused(session, task, true);
  }

  /**
   * Pauses or resumes {@code task}, through the API when the session is remote and in the database
   * otherwise; {@code resume} is this with {@code paused} false.
   */
  static int setPaused(Session session, String task, boolean paused) {
    if (session.remote()) {
      TaskStateView v = paused ? session.api().pause(task) : session.api().resume(task);
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
    Db db = session.db();
    LoadedTask before =
        db.tasks().load(task).orElseThrow(() -> CliException.badInput("no task '" + task + "'"));
    boolean changed = db.tasks().setPaused(task, paused, session.actor());
    String state = paused ? "paused" : "active";
    Output out = session.output();
    if (out.json()) {
      out.printJson(Map.of("task", task, "paused", paused, "changed", changed));
    } else {
      out.line(
          "task '"
              + task
              + "' "
              + (changed ? "is now " + state : "was already " + state)
              + (changed ? " (version " + (before.version() + 1) + ")" : ""));
    }
    return Schedctl.OK;
  }
}
