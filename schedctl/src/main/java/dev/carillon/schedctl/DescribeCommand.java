package dev.carillon.schedctl;

import dev.carillon.client.model.EventView;
import dev.carillon.model.Durations;
import dev.carillon.model.instance.EventText;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.resume.EffectRecord;
import dev.carillon.model.resume.SavedCheckpoint;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.ArchivedInstance;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code schedctl describe instance ID}. */
@Command(
    mixinStandardHelpOptions = true,
    name = "describe",
    description = "Show one object in full.",
    subcommands = {DescribeCommand.InstanceCommand.class, DescribeCommand.TaskCommand.class})
final class DescribeCommand extends GroupCommand {

  /**
   * An instance with its history and what its attempts left for resuming (the last checkpoint of
   * each attempt, every attempt's record of every effect), for {@code -o json}.
   *
   * @param waiting why a PENDING instance waits for a worker, or null
   */
  record Described(
      Instance instance,
      String queue,
      String waiting,
      List<EventView> events,
      List<SavedCheckpoint> checkpoints,
      List<EffectRecord> effects,
      Instant archivedAt) {}

  /** The most characters of a checkpoint's state the table shows; JSON shows it whole. */
  static final int STATE_SHOWN = 100;

  /**
   * One event with its plain-words reading, in the API's shape (the same JSON either way).
   *
   * @param zone the task's zone, when it is known: the event's time is also given on its clock
   */
  static EventView eventView(InstanceEvent e, Optional<ZoneId> zone) {
    return new EventView(
        e.id(),
        e.instanceId(),
        e.kind().name(),
        e.from() == null ? null : e.from().name(),
        e.to() == null ? null : e.to().name(),
        e.attempt(),
        e.actor(),
        e.reason(),
        e.at(),
        EventText.of(e),
        zone.map(ZoneId::getId).orElse(null),
        zone.map(z -> Map.of("at", Times.local(e.at(), z))).orElse(Map.of()));
  }

  @Command(
      name = "instance",
      description =
          "Show an instance, its full event history, and per attempt its last checkpoint and its"
              + " effects (done, or started and never recorded: in doubt).")
  static final class InstanceCommand implements Callable<Integer> {
    private final Session session;

    @Parameters(paramLabel = "ID", description = "the instance id")
    long id;

    InstanceCommand(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      if (session.remote()) {
        dev.carillon.client.model.InstanceView i = session.api().instance(id);
        List<EventView> events = session.api().events(id);
        Output out = session.output();
        if (out.json()) {
          out.printJson(java.util.Map.of("instance", i, "events", events));
        } else {
          Remote.instance(out, i, events);
        }
        return Schedctl.OK;
      }
      Db db = session.db();
      // A live instance, else one the archiver moved to the history tables: read only, same view.
      Optional<Instance> live = db.operator().find(id);
      Optional<ArchivedInstance> archived =
          live.isPresent() ? Optional.empty() : db.operator().findArchived(id);
      Instance i =
          live.or(() -> archived.map(ArchivedInstance::instance))
              .orElseThrow(() -> CliException.badInput("no instance with id " + id));
      Instant archivedAt = archived.map(ArchivedInstance::archivedAt).orElse(null);
      // Instants are shown in UTC and in the task's zone, if the task is still there to say it.
      Optional<ZoneId> zone = session.taskZone(i.taskId());
      List<EventView> events =
          (live.isPresent() ? db.operator().events(id) : db.operator().archivedEvents(id))
              .stream().map(e -> eventView(e, zone)).toList();
      List<SavedCheckpoint> checkpoints =
          live.isPresent() ? db.operator().checkpoints(id) : db.operator().archivedCheckpoints(id);
      List<EffectRecord> effects =
          live.isPresent() ? db.operator().effects(id) : db.operator().archivedEffects(id);
      String queue = db.tasks().find(i.taskId()).map(TaskDefinition::queue).orElse(null);
      String waiting = live.isPresent() ? WorkerWait.of(db, i).orElse(null) : null;
      Output out = session.output();
      if (out.json()) {
        out.printJson(new Described(i, queue, waiting, events, checkpoints, effects, archivedAt));
        return Schedctl.OK;
      }
      List<List<String>> f = new ArrayList<>();
      f.add(List.of("id", Long.toString(i.id())));
      f.add(List.of("task", i.taskId() + zone.map(z -> "  (zone " + z + ")").orElse("")));
      f.add(
          List.of("window", i.windowKey() + "  [" + i.windowStart() + ", " + i.windowEnd() + ")"));
      zone.ifPresent(
          z ->
              f.add(
                  List.of(
                      "window local",
                      "["
                          + Times.local(i.windowStart(), z)
                          + ", "
                          + Times.local(i.windowEnd(), z)
                          + ")")));
      f.add(List.of("queue", str(queue)));
      f.add(
          List.of(
              "status",
              i.status().name()
                  + (waiting == null ? "" : " (" + WorkerWait.sentence(waiting) + ")")));
      if (archivedAt != null) {
        f.add(
            List.of("archived", Times.both(archivedAt, zone) + "  (read from the history tables)"));
      }
      f.add(List.of("origin", i.origin().name()));
      f.add(List.of("scheduled", Times.both(i.scheduledAt(), zone)));
      f.add(List.of("attempt", Integer.toString(i.attempt())));
      f.add(List.of("retries", i.retryCount() + " of " + i.maxRetry()));
      f.add(List.of("next attempt", Times.both(i.nextAttemptAt(), zone)));
      f.add(List.of("lease until", Times.both(i.leaseUntil(), zone)));
      f.add(List.of("timeout", Durations.format(i.timeout())));
      f.add(List.of("worker", str(i.workerId())));
      f.add(List.of("progress", progress(i, zone)));
      f.add(List.of("non-retryable", Boolean.toString(i.nonRetryable())));
      f.add(
          List.of("result", str(i.resultSummary()) + (i.resultTruncated() ? " (truncated)" : "")));
      f.add(List.of("result uri", str(i.resultUri())));
      f.add(List.of("fail reason", str(i.failReason())));
      f.add(List.of("started", Times.both(i.startedAt(), zone)));
      f.add(List.of("finished", Times.both(i.finishedAt(), zone)));
      f.add(List.of("dispatched", Times.both(i.dispatchedAt(), zone)));
      f.add(List.of("created", Times.both(i.createdAt(), zone)));
      f.add(List.of("updated", Times.both(i.updatedAt(), zone)));
      out.fields(f);
      out.line("");
      out.line("Events:");
      out.table(
          zone.isPresent() ? List.of("AT", "LOCAL", "EVENT") : List.of("AT", "EVENT"),
          events.stream()
              .map(
                  e ->
                      zone.isPresent()
                          ? List.of(e.at().toString(), Times.local(e.at(), zone.get()), e.text())
                          : List.of(e.at().toString(), e.text()))
              .toList());
      out.line("");
      if (checkpoints.isEmpty()) {
        out.line("Checkpoints: none");
      } else {
        out.line("Checkpoints (the last of each attempt):");
        out.table(
            withLocal(List.of("ATTEMPT", "SAVED", "SAVES", "WORKER", "STATE"), 2, zone, "LOCAL"),
            checkpoints.stream()
                .map(
                    c ->
                        withLocal(
                            List.of(
                                Integer.toString(c.attempt()),
                                c.savedAt().toString(),
                                Integer.toString(c.saves()),
                                c.workerId(),
                                shorten(c.stateJson())),
                            2,
                            zone,
                            c.savedAt()))
                .toList());
      }
      out.line("");
      if (effects.isEmpty()) {
        out.line("Effects: none");
      } else {
        out.line("Effects:");
        out.table(
            withLocal(
                List.of("ATTEMPT", "KEY", "STATE", "AT", "WORKER", "RESULT"), 4, zone, "LOCAL"),
            effects.stream()
                .map(
                    e ->
                        withLocal(
                            List.of(
                                Integer.toString(e.attempt()),
                                e.key(),
                                e.done() ? "done" : "started, not recorded (in doubt)",
                                (e.done() ? e.doneAt() : e.startedAt()).toString(),
                                e.workerId(),
                                e.result() == null ? "" : shorten(e.result())),
                            4,
                            zone,
                            e.done() ? e.doneAt() : e.startedAt()))
                .toList());
      }
      return Schedctl.OK;
    }

    /**
     * The latest progress report and when it was made; a report older than the current attempt's
     * start is the previous attempt's, and says so.
     */
    static String progress(Instance i, Optional<ZoneId> zone) {
      if (i.progress() == null) {
        return "";
      }
      boolean earlier =
          i.progressAt() != null && i.startedAt() != null && i.progressAt().isBefore(i.startedAt());
      return i.progress()
          + " (reported "
          + Times.both(i.progressAt(), zone)
          + (earlier ? ", by an earlier attempt" : "")
          + ")";
    }

    /**
     * {@code row} with a column for the task's wall clock inserted at {@code index} when the zone
     * is known: the header's name here, or (below) an instant shown on that clock.
     */
    private static List<String> withLocal(
        List<String> row, int index, Optional<ZoneId> zone, String header) {
      return zone.isEmpty() ? row : inserted(row, index, header);
    }

    private static List<String> withLocal(
        List<String> row, int index, Optional<ZoneId> zone, Instant at) {
      return zone.map(z -> inserted(row, index, Times.local(at, z))).orElse(row);
    }

    private static List<String> inserted(List<String> row, int index, String cell) {
      List<String> out = new ArrayList<>(row);
      out.add(index, cell);
      return out;
    }

    private static String shorten(String text) {
      String oneLine = text.replaceAll("\\s+", " ");
      return oneLine.length() <= STATE_SHOWN
          ? oneLine
          : oneLine.substring(0, STATE_SHOWN)
              + "… ("
              + text.length()
              + " chars; -o json shows all)";
    }

    private static String str(Object o) {
      return o == null ? "" : o.toString();
    }
  }

  @Command(
      mixinStandardHelpOptions = true,
      name = "task",
      description =
          "Show a task: its trigger, settings, params, next fire time (UTC and local) and last"
              + " outcome (through the API).")
  static final class TaskCommand implements Callable<Integer> {
    private final Session session;

    @Parameters(paramLabel = "TASK", description = "the task id")
    String task;

    TaskCommand(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      dev.carillon.client.model.TaskView t = session.api().task(task);
      Output out = session.output();
      if (out.json()) {
        out.printJson(t);
      } else {
        Remote.task(out, t);
      }
      return Schedctl.OK;
    }
  }
}
