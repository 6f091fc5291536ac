package dev.carillon.schedctl;

import dev.carillon.client.model.EventView;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.WindowStory;
import dev.carillon.store.LoadedTask;
import java.time.Instant;
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

  /**
   * The story of one window, for {@code -o json}.
   *
   * @param waiting why the window's PENDING instance waits for a worker, or null
   * @param archivedAt when the window's instance was moved to the history tables, or null
   */
  record Story(
      String task, String window, List<EventView> events, String waiting, Instant archivedAt) {}

  @Override
  public Integer call() {
    if (session.remote()) {
      return remote();
    }
    Db db = session.db();
    List<InstanceEvent> events = db.operator().windowEvents(task, window);
    Optional<LoadedTask> loaded = db.tasks().load(task);
    if (events.isEmpty() && loaded.isEmpty()) {
      throw CliException.badInput("no task '" + task + "'");
    }
    WindowStory story =
        WindowStory.of(
            task,
            window,
            events,
            loaded.flatMap(LoadedTask::definition),
            session.clock.instant(),
            waiting(db, events));
    Output out = session.output();
    Instant archivedAt = db.operator().windowArchivedAt(task, window).orElse(null);
    if (out.json()) {
      out.printJson(
          new Story(
              task,
              window,
              events.stream().map(e -> DescribeCommand.eventView(e, story.zone())).toList(),
              story.waiting().orElse(null),
              archivedAt));
      return Schedctl.OK;
    }
    out.line(story.heading());
    if (archivedAt != null) {
      out.line(
          "Archived "
              + WindowStory.both(archivedAt, story.zone())
              + ": its instance and events are read from the history tables.");
    }
    story.hint().ifPresent(h -> out.line("Hint: " + h));
    story.lines().forEach(l -> out.line("  " + l));
    story.nowLine().ifPresent(l -> out.line("  " + l));
    return Schedctl.OK;
  }

  /** The most instances of the task read to find the window's instance through the API. */
  static final int MAX_SCANNED = 10_000;

  /**
   * Through the API, which explains a window by one of its instances: the task's instances are read
   * newest first until the window's is found.
   */
  private int remote() {
    dev.carillon.client.model.InstanceView found =
        session
            .api()
            .listInstances(dev.carillon.client.InstanceQuery.all().withTask(task).withPageSize(500))
            .limit(MAX_SCANNED)
            .filter(i -> i.windowKey().equals(window))
            .findFirst()
            .orElseThrow(
                () ->
                    CliException.badInput(
                        "no instance of task '"
                            + task
                            + "' has window '"
                            + window
                            + "' among its newest "
                            + MAX_SCANNED
                            + " (decisions about a window that never got an instance are"
                            + " shown without --server)"));
    dev.carillon.client.model.WhyView why = session.api().why(found.id());
    Output out = session.output();
    if (out.json()) {
      out.printJson(why);
      return Schedctl.OK;
    }
    why.lines().forEach(out::line);
    if (why.hint() != null) {
      out.line(why.hint());
    }
    return Schedctl.OK;
  }

  /** Why the window's latest instance waits for a worker, if it is PENDING and does. */
  private static Optional<String> waiting(Db db, List<InstanceEvent> events) {
    for (int k = events.size() - 1; k >= 0; k--) {
      Long id = events.get(k).instanceId();
      if (id != null) {
        return db.operator().find(id).flatMap(i -> WorkerWait.of(db, i));
      }
    }
    return Optional.empty();
  }
}
