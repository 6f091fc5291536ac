package dev.carillon.schedctl;

import dev.carillon.model.schedule.DstAdjustment;
import dev.carillon.model.schedule.FireTime;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.LoadedTask;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code schedctl next TASK}: the coming fire times, and which ones a DST change moves. */
@Command(
    mixinStandardHelpOptions = true,
    name = "next",
    description =
        "Show a task's next fire times in its zone and in UTC, with their windows, flagging every fire time a daylight-saving change shifts or doubles.")
final class NextCommand implements Callable<Integer> {
  static final int MAX_COUNT = 1000;
  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssxxx");

  private final Session session;

  @Parameters(paramLabel = "TASK")
  String task;

  @Option(
      names = "--count",
      defaultValue = "5",
      paramLabel = "N",
      description = "how many (1.." + MAX_COUNT + ", default 5)")
  int count;

  NextCommand(Session session) {
    this.session = session;
  }

  /** One coming fire time, for {@code -o json}. */
  record Fire(
      Instant utc,
      String local,
      String nominal,
      String window,
      DstAdjustment adjustment,
      String note) {}

  /** The answer, for {@code -o json}. */
  record Next(String task, String zone, String cron, boolean paused, List<Fire> fires) {}

  @Override
  public Integer call() {
    if (count < 1 || count > MAX_COUNT) {
      throw CliException.badInput("--count " + count + " must be between 1 and " + MAX_COUNT);
    }
    LoadedTask loaded =
        session
            .db()
            .tasks()
            .load(task)
            .orElseThrow(() -> CliException.badInput("no task '" + task + "'"));
    TaskDefinition d =
        loaded
            .definition()
            .orElseThrow(
                () ->
                    CliException.badInput(
                        "task '"
                            + task
                            + "' is stored but no longer valid: "
                            + loaded.error().map(Throwable::getMessage).orElse("?")));
    if (!(d.trigger() instanceof CronTrigger cron)) {
      throw CliException.badInput(
          "task '" + task + "' has a " + d.triggerKind() + " trigger: it has no fire times");
    }
    ZoneId zone = cron.zone();
    Instant now = session.clock.instant();
    List<FireTime> fires = cron.schedule().fireTimesDetailed(now, Instant.MAX, count);
    List<Fire> out = new ArrayList<>();
    for (FireTime f : fires) {
      ZonedDateTime local = f.instant().atZone(zone);
      out.add(
          new Fire(
              f.instant(),
              local.format(LOCAL),
              f.nominal().toString(),
              cron.window().windowOf(f.instant(), zone).key(),
              f.adjustment(),
              note(f, local)));
    }
    Output o = session.output();
    if (o.json()) {
      o.printJson(new Next(d.id(), zone.getId(), cron.cron(), d.paused(), out));
      return Schedctl.OK;
    }
    o.line("Task '" + d.id() + "': " + cron.cron() + " in " + zone + ":");
    if (d.paused()) {
      o.line("(paused: these times create no windows until 'schedctl resume " + d.id() + "')");
    }
    o.table(List.of("#", "LOCAL (" + zone + ")", "UTC", "WINDOW", "DST"), numbered(out));
    if (out.isEmpty()) {
      o.line("The expression never fires again (cron years end in 2099).");
    }
    return Schedctl.OK;
  }

  private static List<List<String>> numbered(List<Fire> fires) {
    List<List<String>> rows = new ArrayList<>();
    for (int i = 0; i < fires.size(); i++) {
      Fire f = fires.get(i);
      rows.add(
          List.of(
              Integer.toString(i + 1),
              f.local(),
              f.utc().toString(),
              f.window(),
              f.note() == null ? "" : f.note()));
    }
    return rows;
  }

  private static String note(FireTime f, ZonedDateTime local) {
    String nominal = f.nominal().toLocalTime().toString();
    return switch (f.adjustment()) {
      case NONE -> null;
      case SHIFTED_OUT_OF_GAP ->
          "SHIFTED: "
              + nominal
              + " does not exist on "
              + f.nominal().toLocalDate()
              + " (clocks spring forward); fires at "
              + local.toLocalTime()
              + " instead";
      case FIRST_OF_REPEATED ->
          "REPEATED HOUR: "
              + nominal
              + " happens twice (clocks fall back); this is the first, offset "
              + local.getOffset();
      case SECOND_OF_REPEATED ->
          "REPEATED HOUR: second "
              + nominal
              + " (clocks fell back), offset "
              + local.getOffset()
              + "; an every-hour schedule fires in both";
    };
  }
}
