package dev.carillon.schedctl;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code schedctl cancel ID}. */
@Command(
    mixinStandardHelpOptions = true,
    name = "cancel",
    description =
        "Cancel an instance that has not finished. A running attempt is stopped at its worker's next heartbeat; the window stays CANCELLED until re-run.")
final class CancelCommand implements java.util.concurrent.Callable<Integer> {
  private final Session session;

  @Parameters(paramLabel = "ID")
  long id;

  @Option(names = "--reason", paramLabel = "TEXT", description = "recorded in the event log")
  String reason;

  CancelCommand(Session session) {
    this.session = session;
  }

  @Override
  public Integer call() {
    if (session.remote()) {
      return InstanceChanges.printRemote(session, id, session.api().cancel(id, reason), false);
    }
    Db db = session.db();
    Instance seen = InstanceChanges.find(db, id);
    if (!seen.status().canTransitionTo(InstanceStatus.CANCELLED)) {
      throw CliException.badInput(
          "instance "
              + id
              + " is "
              + seen.status()
              + " and cannot be cancelled"
              + (seen.status().isFinished() ? " (it has finished)" : ""));
    }
    String why = "cancelled by operator" + (reason == null ? "" : ": " + reason);
    Instance now =
        db.operator()
            .cancel(seen, session.actor(), why)
            .orElseThrow(() -> InstanceChanges.changedWhile(id, "cancelling", seen));
    Output out = session.output();
    if (out.json()) {
      out.printJson(now);
    } else {
      out.line("instance " + id + ": " + seen.status() + " -> " + now.status());
    }
    return Schedctl.OK;
  }
}
