package dev.carillon.schedctl;

import dev.carillon.client.model.InstanceChange;
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
      InstanceChange c = session.api().cancel(id, reason);
      Output out = session.output();
      if (out.json()) {
        out.printJson(c);
      } else {
        out.line(
            "instance "
                + id
                + ": "
                + c.previousStatus()
                + " -> "
                + c.instance().status()
                + ("cancel".equals("rerun")
                    ? (c.published() ? ", published" : ", to be published by the stranded scan")
                    : ""));
      }
      return Schedctl.OK;
    }
    Db db = session.db();
    Instance seen =
        db.operator()
            .find(id)
            .orElseThrow(() -> CliException.badInput("no instance with id " + id));
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
            .orElseThrow(
                () ->
                    CliException.badInput(
                        "instance "
                            + id
                            + " changed while cancelling it (it is no longer "
                            + seen.status()
                            + " at attempt "
                            + seen.attempt()
                            + "); look again and retry"));
    Output out = session.output();
    if (out.json()) {
      out.printJson(now);
    } else {
      out.line("instance " + id + ": " + seen.status() + " -> " + now.status());
    }
    return Schedctl.OK;
  }
}
