package dev.carillon.schedctl;

import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.LoadedTask;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code schedctl why TASK WINDOW}: every decision ever made about one window. */
@Command(
    mixinStandardHelpOptions = true,
    name = "why",
    description =
        "Tell, in order, every decision made about one window of a task: created, skipped and why, claimed by whom, failed why, retried when, dead why, re-run or cancelled by whom.")
final class WhyCommand implements Callable<Integer> {
  private final Session session;

  @Parameters(index = "0", paramLabel = "TASK")
  String task;

  @Parameters(index = "1", paramLabel = "WINDOW", description = "the window key, e.g. 2026-03-29")
  String window;

  WhyCommand(Session session) {
    this.session = session;
  }

  /** The story of one window, for {@code -o json}. */
  record Story(String task, String window, List<DescribeCommand.EventView> events) {}

  @Override
  public Integer call() {
    Db db = session.db();
    List<InstanceEvent> events = db.operator().windowEvents(task, window);
    Optional<LoadedTask> loaded = db.tasks().load(task);
    if (events.isEmpty() && loaded.isEmpty()) {
      throw CliException.badInput("no task '" + task + "'");
    }
    Output out = session.output();
    List<DescribeCommand.EventView> views =
        events.stream().map(DescribeCommand.EventView::of).toList();
    if (out.json()) {
      out.printJson(new Story(task, window, views));
      return Schedctl.OK;
    }
    if (views.isEmpty()) {
      out.line("Nothing was ever decided about window '" + window + "' of task '" + task + "'.");
      loaded.flatMap(LoadedTask::definition).ifPresent(d -> out.line("Hint: " + keyHint(d)));
      return Schedctl.OK;
    }
    Optional<ZoneId> zone = loaded.flatMap(LoadedTask::definition).map(TaskDefinition::zone);
    out.line(
        "Window '"
            + window
            + "' of task '"
            + task
            + "'"
            + zone.map(z -> " (times in UTC and " + z + ")").orElse("")
            + ":");
    for (DescribeCommand.EventView e : views) {
      out.line(
          "  "
              + Times.both(e.at(), zone)
              + "  "
              + (e.instanceId() == null ? "" : "#" + e.instanceId() + " ")
              + e.text());
    }
    return Schedctl.OK;
  }

  private String keyHint(TaskDefinition d) {
    String now = d.window().windowOf(session.clock.instant(), d.zone()).key();
    return "its "
        + d.window()
        + " windows (zone "
        + d.zone()
        + ") have keys like '"
        + now
        + "' (the window of now).";
  }
}
