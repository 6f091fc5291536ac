package dev.carillon.schedctl;

import dev.carillon.client.model.DeleteResult;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code schedctl delete task ID}, through the API. */
@Command(
    mixinStandardHelpOptions = true,
    name = "delete",
    description = "Delete an object (through the API).",
    subcommands = DeleteCommand.Task.class)
final class DeleteCommand extends GroupCommand {

  @Command(
      mixinStandardHelpOptions = true,
      name = "task",
      description = {
        "Delete a task (soft): it never fires again; its instances and history stay readable.",
        "A task with live instances is refused unless --cancel-live cancels them; applying the"
            + " same id later revives it."
      })
  static final class Task implements Callable<Integer> {
    private final Session session;

    @Parameters(paramLabel = "TASK")
    String task;

    @Option(names = "--cancel-live", description = "cancel its live instances with it")
    boolean cancelLive;

    @Option(names = "--reason", paramLabel = "TEXT", description = "recorded with the delete")
    String reason;

    Task(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      DeleteResult r = session.api().delete(task, cancelLive, reason);
      Output out = session.output();
      if (out.json()) {
        out.printJson(r);
        return Schedctl.OK;
      }
      out.line(
          "deleted task "
              + r.taskId()
              + " (version "
              + r.version()
              + ")"
              + (r.cancelled().isEmpty() ? "" : "; cancelled instances " + r.cancelled()));
      return Schedctl.OK;
    }
  }
}
