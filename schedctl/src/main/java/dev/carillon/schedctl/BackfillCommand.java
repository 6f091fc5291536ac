package dev.carillon.schedctl;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.instance.BackfillPlan;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TimeTrigger;
import dev.carillon.store.LoadedTask;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code schedctl backfill TASK --from --to [--rate]}. */
@Command(
    mixinStandardHelpOptions = true,
    name = "backfill",
    description =
        "Create the missing windows of a past range, origin BACKFILL, and publish them, at most --rate instances per second. Windows that exist (in any status) are never touched.")
final class BackfillCommand implements Callable<Integer> {
  static final double MAX_RATE = 1000;
  // Larger batches make fewer round trips; the rate still bounds instances per second.
  static final int MAX_BATCH = 100;

  private final Session session;

  @Parameters(paramLabel = "TASK")
  String task;

  @Option(
      names = "--from",
      required = true,
      paramLabel = "TIME",
      description = "first fire time included: 2026-03-01, 2026-03-01T08:00 (task zone), instant")
  String fromText;

  @Option(
      names = "--to",
      required = true,
      paramLabel = "TIME",
      description = "end, excluded; not after now")
  String toText;

  @Option(
      names = "--rate",
      defaultValue = "10",
      paramLabel = "PER_SECOND",
      description = "instances created per second (more than 0, at most 1000; default 10)")
  double rate;

  @Option(names = "--dry-run", description = "list the windows; write and publish nothing")
  boolean dryRun;

  BackfillCommand(Session session) {
    this.session = session;
  }

  /** What a backfill did, for {@code -o json}. */
  record Report(
      String task,
      Instant from,
      Instant to,
      int windows,
      int created,
      int existed,
      int published,
      List<String> createdWindows) {}

  /** The API's range on the task's clock, as the direct path prints it; empty without a zone. */
  private static String localRange(dev.carillon.client.model.BackfillResult r) {
    if (!r.local().containsKey("from")) {
      return "";
    }
    return " (local [" + r.local().get("from") + ", " + r.local().getOrDefault("to", "") + "))";
  }

  @Override
  public Integer call() throws InterruptedException {
    if (session.remote()) {
      dev.carillon.client.model.BackfillResult r =
          session
              .api()
              .backfill(
                  task, new dev.carillon.client.model.BackfillRequest(fromText, toText, dryRun));
      Output out = session.output();
      if (out.json()) {
        out.printJson(r);
      } else if (r.dryRun()) {
        out.line(
            r.windows()
                + " window(s) in ["
                + r.from()
                + ", "
                + r.to()
                + ")"
                + localRange(r)
                + "; nothing written (dry run)");
        r.windowKeys().forEach(k -> out.line("  " + k));
      } else {
        out.line(
            "created "
                + r.created()
                + ", already there "
                + r.existed()
                + ", published "
                + r.published()
                + " of "
                + r.windows()
                + " window(s) in ["
                + r.from()
                + ", "
                + r.to()
                + ")"
                + localRange(r)
                + " (paced by the server's api.bulk-per-second; --rate applies without --server)");
      }
      return Schedctl.OK;
    }
    if (!(rate > 0) || rate > MAX_RATE) {
      throw CliException.badInput(
          "--rate " + rate + " must be more than 0 and at most " + (int) MAX_RATE);
    }
    CommandPublisher publisher = dryRun ? null : new CommandPublisher(session);
    try {
      Db db = session.db();
      LoadedTask loaded =
          db.tasks().load(task).orElseThrow(() -> CliException.badInput("no task '" + task + "'"));
      TaskDefinition def =
          loaded
              .definition()
              .orElseThrow(
                  () -> CliException.badInput("task '" + task + "' is stored but invalid"));
      if (!(def.trigger() instanceof TimeTrigger time)) {
        throw CliException.badInput(
            "task '"
                + task
                + "' has a "
                + def.triggerKind()
                + " trigger; backfill needs fire times from the clock, cron or at (re-run its"
                + " windows instead)");
      }
      ZoneId zone = time.zone();
      Instant from = Times.parse("--from", fromText, zone, null);
      Instant to = Times.parse("--to", toText, zone, null);
      Instant now = session.clock.instant();
      if (!from.isBefore(to)) {
        throw CliException.badInput(
            "--from " + from + " must be before --to " + to + " (the range is [from, to))");
      }
      if (to.isAfter(now)) {
        throw CliException.badInput(
            "--to "
                + to
                + " is in the future (now is "
                + now
                + "); backfill creates past windows only, the trigger creates the rest");
      }
      BackfillPlan plan;
      try {
        plan = BackfillPlan.of(def, from, to);
      } catch (InvalidValueException e) {
        throw CliException.badInput(
            "the range " + e.problem().value() + " " + e.problem().message());
      }
      if (dryRun) {
        return report(plan, zone, List.of(), 0, true);
      }
      List<Instance> created = new ArrayList<>();
      int published = 0;
      boolean kafkaFailed = false;
      int batch = (int) Math.max(1, Math.min(MAX_BATCH, Math.floor(rate)));
      Instant start = session.clock.instant();
      for (int i = 0; i < plan.rows().size(); i += batch) {
        // Pace by instances created: windows that already existed cost the workers nothing.
        Duration due = Duration.ofNanos((long) (created.size() * 1e9 / rate));
        Duration wait = due.minus(Duration.between(start, session.clock.instant()));
        if (!wait.isNegative() && !wait.isZero()) {
          session.sleeper.sleep(wait);
        }
        List<NewInstance> rows = plan.rows().subList(i, Math.min(plan.rows().size(), i + batch));
        List<Instance> inserted = db.windows().create(rows, session.actor());
        created.addAll(inserted);
        if (!kafkaFailed && !inserted.isEmpty()) {
          int acked = publisher.publish(inserted).size();
          published += acked;
          // Do not wait out the acknowledgement timeout on every batch once Kafka is gone; the
          // rows are in the table and the retry service publishes undispatched PENDING rows.
          kafkaFailed = acked < inserted.size();
        }
      }
      int code = report(plan, zone, created, published, false);
      if (published < created.size()) {
        throw CliException.unreachable(
            "cannot reach Kafka at "
                + publisher.bootstrap()
                + ": "
                + (created.size() - published)
                + " created instance(s) were not published; they are PENDING and the retry"
                + " service will publish them",
            null);
      }
      return code;
    } finally {
      if (publisher != null) {
        publisher.close();
      }
    }
  }

  private int report(
      BackfillPlan plan, ZoneId zone, List<Instance> created, int published, boolean dry) {
    Output out = session.output();
    List<String> keys =
        dry
            ? plan.rows().stream().map(r -> r.window().key()).toList()
            : created.stream().map(Instance::windowKey).toList();
    if (out.json()) {
      out.printJson(
          new Report(
              plan.taskId(),
              plan.from(),
              plan.to(),
              plan.rows().size(),
              created.size(),
              dry ? 0 : plan.rows().size() - created.size(),
              published,
              keys));
      return Schedctl.OK;
    }
    if (dry) {
      out.line(
          plan.rows().size()
              + " window(s) of '"
              + plan.taskId()
              + "' in ["
              + plan.from()
              + ", "
              + plan.to()
              + ") (local ["
              + Times.local(plan.from(), zone)
              + ", "
              + Times.local(plan.to(), zone)
              + ")); dry run, nothing written:");
      plan.rows()
          .forEach(
              r ->
                  out.line(
                      "  "
                          + r.window().key()
                          + "  scheduled "
                          + Times.both(r.scheduledAt(), Optional.of(zone))));
      return Schedctl.OK;
    }
    out.line(
        "task '"
            + plan.taskId()
            + "' ["
            + plan.from()
            + ", "
            + plan.to()
            + ") (local ["
            + Times.local(plan.from(), zone)
            + ", "
            + Times.local(plan.to(), zone)
            + ")): "
            + plan.rows().size()
            + " window(s), "
            + created.size()
            + " created, "
            + (plan.rows().size() - created.size())
            + " existed already (untouched), "
            + published
            + " published");
    created.forEach(i -> out.line("  " + i.windowKey() + "  instance " + i.id()));
    return Schedctl.OK;
  }
}
