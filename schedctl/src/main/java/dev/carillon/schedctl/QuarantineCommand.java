package dev.carillon.schedctl;

import dev.carillon.model.instance.Instance;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code schedctl quarantine list|clear}: the rows a retry scanner set aside because handling them
 * failed in a way no retry fixes (their event log says why: {@code schedctl describe instance ID}).
 * They stay in their status and out of every scan until cleared.
 */
@Command(
    mixinStandardHelpOptions = true,
    name = "quarantine",
    description = {
      "Instances a retry scanner set aside because they could not be handled (see why with"
          + " 'describe instance ID'); they stay out of every scan until cleared."
    },
    subcommands = {QuarantineCommand.ListCommand.class, QuarantineCommand.Clear.class})
final class QuarantineCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return Schedctl.BAD_INPUT;
  }

  @Command(mixinStandardHelpOptions = true, name = "list", description = "Quarantined instances.")
  static final class ListCommand implements Callable<Integer> {
    private final Session session;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100", description = "at most N")
    int limit;

    ListCommand(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      if (limit < 1 || limit > 10_000) {
        throw CliException.badInput("--limit must be 1..10000, was " + limit);
      }
      List<Instance> rows = session.db().operator().quarantined(limit);
      Output out = session.output();
      if (out.json()) {
        out.printJson(rows);
      } else {
        out.table(
            List.of("ID", "TASK", "WINDOW", "STATUS", "ATTEMPT"),
            rows.stream()
                .map(
                    i ->
                        List.of(
                            Long.toString(i.id()),
                            i.taskId(),
                            i.windowKey(),
                            i.status().name(),
                            Integer.toString(i.attempt())))
                .toList());
      }
      return Schedctl.OK;
    }
  }

  @Command(
      mixinStandardHelpOptions = true,
      name = "clear",
      description =
          "Let the scanners take instance ID up again (after fixing what stopped them); recorded in"
              + " its event log.")
  static final class Clear implements Callable<Integer> {
    private final Session session;

    @Parameters(paramLabel = "ID")
    long id;

    @Option(names = "--reason", paramLabel = "TEXT", description = "recorded in the event log")
    String reason;

    Clear(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      String why = "cleared by operator" + (reason == null ? "" : ": " + reason);
      if (!session.db().operator().clearQuarantine(id, session.actor(), why)) {
        throw CliException.badInput("instance " + id + " is not quarantined (or does not exist)");
      }
      session.output().line("instance " + id + ": quarantine cleared");
      return Schedctl.OK;
    }
  }
}
