package dev.carillon.schedctl;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.resume.RerunMode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code schedctl rerun ID}: a finished instance runs again. */
@Command(
    mixinStandardHelpOptions = true,
    name = "rerun",
    description = {
      "Run a finished instance (SUCCESS, DEAD, SKIPPED, CANCELLED) again: back to PENDING with a fresh retry budget, origin unchanged, and published to the workers.",
      "By default the new run resumes: it receives the last checkpoint its attempts saved, and effects recorded as done (a post, a charge) are not performed again. --from-scratch discards them first."
    })
final class RerunCommand implements Callable<Integer> {
  private final Session session;

  @Parameters(paramLabel = "ID")
  long id;

  @Option(names = "--reason", paramLabel = "TEXT", description = "recorded in the event log")
  String reason;

  @Option(
      names = "--from-scratch",
      description =
          "discard the attempts' checkpoints and effects, so that the run starts from nothing and"
              + " performs every effect again (the event log says what was discarded)")
  boolean fromScratch;

  RerunCommand(Session session) {
    this.session = session;
  }

  @Override
  public Integer call() {
    if (session.remote()) {
      return InstanceChanges.printRemote(session, id, session.api().rerun(id, reason), true);
    }
    try (CommandPublisher publisher = new CommandPublisher(session)) {
      Db db = session.db();
      Instance seen = InstanceChanges.find(db, id);
      if (!seen.status().isFinished()) {
        throw CliException.badInput(
            "instance "
                + id
                + " is "
                + seen.status()
                + "; only finished instances ("
                + InstanceStatus.FINISHED
                + ") can be re-run"
                + (seen.status() == InstanceStatus.RUNNING
                    ? " (cancel it first to stop the current run)"
                    : ""));
      }
      String why = "re-run requested" + (reason == null ? "" : ": " + reason);
      Instance now =
          db.operator()
              .rerun(
                  seen,
                  session.actor(),
                  why,
                  fromScratch ? RerunMode.FROM_SCRATCH : RerunMode.RESUME)
              .orElseThrow(() -> InstanceChanges.changedWhile(id, "re-running", seen));
      List<Long> acked = publisher.publish(List.of(now));
      Output out = session.output();
      if (out.json()) {
        out.printJson(
            Map.of("instance", now, "published", !acked.isEmpty(), "fromScratch", fromScratch));
      } else {
        out.line(
            "instance "
                + id
                + " ("
                + now.taskId()
                + " "
                + now.windowKey()
                + "): "
                + seen.status()
                + " -> "
                + now.status()
                + (fromScratch
                    ? ", from scratch (checkpoints and effects discarded)"
                    : ", resuming from its checkpoints and effects")
                + (acked.isEmpty() ? "" : ", published"));
      }
      if (acked.isEmpty()) {
        throw CliException.unreachable(
            "cannot reach Kafka at "
                + publisher.bootstrap()
                + ": instance "
                + id
                + " is PENDING but was not published; the retry service will publish it",
            null);
      }
      return Schedctl.OK;
    }
  }
}
