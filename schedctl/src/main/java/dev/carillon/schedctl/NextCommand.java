package dev.carillon.schedctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.carillon.model.schedule.DstAdjustment;
import dev.carillon.model.schedule.FireTime;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.schedule.ZoneWarnings;
import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TimeTrigger;
import dev.carillon.spec.Format;
import dev.carillon.spec.InvalidSpecException;
import dev.carillon.spec.SpecReader;
import dev.carillon.store.LoadedTask;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code schedctl next TASK}: the coming fire times, and which ones a DST change moves; {@code
 * schedctl next --cron EXPR --zone ZONE} previews an expression that is not a task yet.
 */
@Command(
    mixinStandardHelpOptions = true,
    name = "next",
    description =
        "Show a task's next fire times in its zone and in UTC, with their windows, flagging every fire time a daylight-saving change shifts or doubles. With --cron and --zone instead of TASK, preview an expression before it is a task (no database needed).")
final class NextCommand implements Callable<Integer> {
  static final int MAX_COUNT = 1000;
  private static final Map<String, String> PREVIEW_OPTIONS =
      Map.of("schedule.cron", "--cron", "schedule.zone", "--zone", "schedule.window", "--window");

  private final Session session;

  @Parameters(
      arity = "0..1",
      paramLabel = "TASK",
      description = "a stored task (or none, to preview --cron in --zone)")
  String task;

  @Option(
      names = "--cron",
      paramLabel = "EXPR",
      description = "preview this Quartz expression with seconds, e.g. '0 30 2 * * ?'")
  String cronText;

  @Option(
      names = "--zone",
      paramLabel = "ZONE",
      description = "the IANA zone of --cron, e.g. America/New_York")
  String zoneText;

  @Option(
      names = "--window",
      paramLabel = "KIND",
      description =
          "the window kind of --cron: DAILY (default), HOURLY, WEEKLY, MONTHLY, EVERY_FIRE")
  String windowText;

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

  /**
   * The answer, for {@code -o json}.
   *
   * @param task the task id, or null for a preview
   */
  record Next(
      String task, String zone, String cron, String trigger, boolean paused, List<Fire> fires) {}

  @Override
  public Integer call() {
    if (session.remote()) {
      return remote();
    }
    if (count < 1 || count > MAX_COUNT) {
      throw CliException.badInput("--count " + count + " must be between 1 and " + MAX_COUNT);
    }
    TaskDefinition d = task != null ? stored() : preview();
    TimeTrigger trigger = (TimeTrigger) d.trigger(); // stored() and preview() made sure
    String cron = trigger instanceof CronTrigger c ? c.cron() : null;
    ZoneId zone = trigger.zone();
    ZoneWarnings.of(task != null ? "schedule.zone" : "--zone", zone)
        .ifPresent(w -> session.err.println("warning: " + w));
    Instant now = session.clock.instant();
    List<FireTime> fires = trigger.fireTimesDetailed(now, Instant.MAX, count);
    List<Fire> out = new ArrayList<>();
    for (FireTime f : fires) {
      out.add(
          new Fire(
              f.instant(),
              Times.local(f.instant(), zone),
              f.nominal().toString(),
              trigger.window().windowOf(f.instant(), zone).key(),
              f.adjustment(),
              f.dstNote(zone).orElse(null)));
    }
    Output o = session.output();
    if (o.json()) {
      o.printJson(new Next(task, zone.getId(), cron, trigger.describe(), d.paused(), out));
      return Schedctl.OK;
    }
    if (task == null) {
      o.line(
          "Preview: " + cron + " in " + zone + ", " + trigger.window() + " windows (not a task):");
    } else {
      o.line("Task '" + d.id() + "': " + trigger.describe() + ":");
    }
    if (d.paused()) {
      o.line("(paused: these times create no windows until 'schedctl resume " + d.id() + "')");
    }
    o.table(List.of("#", "LOCAL (" + zone + ")", "UTC", "WINDOW", "DST"), numbered(out));
    if (out.isEmpty()) {
      o.line(
          trigger instanceof AtTrigger
              ? "A one-shot whose instant has passed: it never fires again."
              : "The expression never fires again (cron years end in 2099).");
    }
    return Schedctl.OK;
  }

  private TaskDefinition stored() {
    if (cronText != null || zoneText != null || windowText != null) {
      throw CliException.badInput(
          "--cron, --zone and --window preview an expression; task '"
              + task
              + "' has its own (give either TASK or --cron with --zone)");
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
    if (!(d.trigger() instanceof TimeTrigger)) {
      throw CliException.badInput(
          "task '" + task + "' has a " + d.triggerKind() + " trigger: it has no fire times");
    }
    return d;
  }

  /**
   * The expression as a task would have it, read by the same spec reader as {@code apply}, so its
   * rules and messages are the same; the problems name the options instead of the spec's fields.
   */
  private TaskDefinition preview() {
    if (cronText == null) {
      throw CliException.badInput(
          "give a TASK, or --cron with --zone to preview an expression (e.g. next --cron '0 30 2 *"
              + " * ?' --zone America/New_York)");
    }
    Map<String, String> schedule = new LinkedHashMap<>();
    schedule.put("cron", cronText);
    if (zoneText != null) {
      schedule.put("zone", zoneText);
    }
    schedule.put("window", windowText == null ? WindowKind.DAILY.name() : windowText);
    String spec;
    try {
      spec =
          Output.JSON.writeValueAsString(
              Map.of("id", "preview", "handler", "preview", "schedule", schedule));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the preview's spec", e);
    }
    try {
      return SpecReader.readOne(spec, Format.JSON, "<preview>");
    } catch (InvalidSpecException e) {
      throw CliException.badInput(
          e.problems().stream()
              .map(
                  p ->
                      PREVIEW_OPTIONS.getOrDefault(p.field(), String.valueOf(p.field()))
                          + " "
                          + (p.value() == null ? "<missing>" : "'" + p.value() + "'")
                          + ": "
                          + p.message())
              .toList());
    }
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

  private int remote() {
    if (count < 1 || count > MAX_COUNT) {
      throw CliException.badInput("--count " + count + " must be between 1 and " + MAX_COUNT);
    }
    if (task != null && (cronText != null || zoneText != null || windowText != null)) {
      throw CliException.badInput("give a TASK or --cron (with --zone, --window), not both");
    }
    if (task == null && cronText == null) {
      throw CliException.badInput("give a TASK or --cron EXPR");
    }
    dev.carillon.client.model.NextFiresView v =
        task != null
            ? session.api().next(task, count)
            : session
                .api()
                .preview(cronText, zoneText, windowText == null ? "DAILY" : windowText, count);
    Output out = session.output();
    if (out.json()) {
      out.printJson(v);
      return Schedctl.OK;
    }
    out.line(
        (v.taskId() == null ? "" : v.taskId() + ": ")
            + (v.trigger() != null ? v.trigger() : v.cron() + " in " + v.zone())
            + (v.paused() ? " (paused: these fire only once it is resumed)" : ""));
    if (v.fires().isEmpty()) {
      out.line("No fire time is left (a one-shot whose instant has passed never fires again).");
      return Schedctl.OK;
    }
    out.table(
        List.of("UTC", "LOCAL", "WINDOW", "NOTE"),
        v.fires().stream()
            .map(
                f ->
                    List.of(
                        f.utc().toString(),
                        f.local(),
                        f.window(),
                        f.note() == null ? "" : f.note()))
            .toList());
    return Schedctl.OK;
  }
}
