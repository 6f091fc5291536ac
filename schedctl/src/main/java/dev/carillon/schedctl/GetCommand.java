package dev.carillon.schedctl;

import dev.carillon.model.Durations;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.spec.RetryPolicyJson;
import dev.carillon.store.LoadedTask;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code schedctl get tasks|instances}. */
@Command(
    mixinStandardHelpOptions = true,
    name = "get",
    description = "List tasks or instances.",
    subcommands = {GetCommand.Tasks.class, GetCommand.Instances.class, GetCommand.One.class})
final class GetCommand extends GroupCommand {

  /** A task row for output; {@code error} is set for a row that no longer validates. */
  record TaskView(
      String id,
      String handler,
      String cron,
      String zone,
      String window,
      String overlap,
      String catchup,
      String timeout,
      Map<String, Object> retry,
      Object params,
      Boolean paused,
      long version,
      String error) {

    static TaskView of(LoadedTask t) {
      if (t.definition().isEmpty()) {
        return new TaskView(
            t.id(),
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            t.version(),
            t.error().map(Throwable::getMessage).orElse("invalid"));
      }
      TaskDefinition d = t.definition().get();
      Object params;
      try {
        params = Output.JSON.readTree(d.paramsJson());
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        params = d.paramsJson();
      }
      return new TaskView(
          d.id(),
          d.handler(),
          d.trigger() instanceof CronTrigger cron
              ? cron.cron()
              : d.trigger() instanceof AtTrigger at
                  ? "at " + Times.both(at.at(), Optional.of(d.zone()))
                  : d.triggerKind().name().toLowerCase(java.util.Locale.ROOT),
          d.zone().getId(),
          d.window().name(),
          d.overlap().name(),
          Durations.format(d.catchup()),
          Durations.format(d.timeout()),
          RetryPolicyJson.toSpec(d.retry()),
          params,
          d.paused(),
          d.version(),
          null);
    }

    String retryText() {
      if (retry == null) {
        return null;
      }
      Object kind = retry.get("policy");
      Object max = retry.get("maxRetries");
      return max == null ? String.valueOf(kind) : kind + " x" + max;
    }
  }

  @Command(name = "tasks", aliases = "task", description = "List every task definition.")
  static final class Tasks implements Callable<Integer> {
    private final Session session;

    Tasks(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      if (session.remote()) {
        List<dev.carillon.client.model.TaskView> all = session.api().allTasks().toList();
        Output out = session.output();
        if (out.json()) {
          out.printJson(all);
        } else {
          Remote.tasks(out, all);
        }
        return Schedctl.OK;
      }
      List<TaskView> views = session.db().tasks().loadAll().stream().map(TaskView::of).toList();
      Output out = session.output();
      if (out.json()) {
        out.printJson(views);
        return Schedctl.OK;
      }
      List<List<String>> rows = new ArrayList<>();
      for (TaskView v : views) {
        if (v.error() != null) {
          rows.add(
              List.of(
                  v.id(), "INVALID: " + Output.abbreviate(v.error(), 100), "", "", "", "", "", ""));
          continue;
        }
        rows.add(
            List.of(
                v.id(),
                v.handler(),
                v.cron() + " @ " + v.zone(),
                v.window(),
                v.overlap(),
                v.retryText(),
                v.paused() ? "yes" : "no",
                Long.toString(v.version())));
      }
      out.table(
          List.of("TASK", "HANDLER", "SCHEDULE", "WINDOW", "OVERLAP", "RETRY", "PAUSED", "VERSION"),
          rows);
      return Schedctl.OK;
    }
  }

  @Command(
      mixinStandardHelpOptions = true,
      name = "instances",
      description = "List instances, newest scheduled first.")
  static final class Instances implements Callable<Integer> {
    static final int MAX_LIMIT = 10_000;

    private final Session session;

    @Option(names = "--task", paramLabel = "TASK", description = "only this task's instances")
    String task;

    @Option(
        names = "--status",
        paramLabel = "STATUS",
        description = "only instances in this status: ${COMPLETION-CANDIDATES}")
    InstanceStatus status;

    @Option(
        names = "--since",
        paramLabel = "TIME",
        description =
            "scheduled at or after: 2026-03-29, 2026-03-29T08:00 (UTC), an instant, or 24h")
    String since;

    @Option(
        names = "--limit",
        defaultValue = "50",
        paramLabel = "N",
        description = "at most N rows (1.." + MAX_LIMIT + ", default 50)")
    int limit;

    @Option(
        names = {"-w", "--watch"},
        description =
            "redraw when the list changes (polled every --interval) until Ctrl-C or --watch-for;"
                + " through the API")
    boolean watch;

    @Option(
        names = "--interval",
        defaultValue = "2s",
        paramLabel = "DURATION",
        description = "how often --watch polls (1s..1m, default 2s)")
    java.time.Duration interval;

    @Option(
        names = "--watch-for",
        defaultValue = "1h",
        paramLabel = "DURATION",
        description = "how long --watch runs at most (default 1h)")
    java.time.Duration watchFor;

    Instances(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() throws InterruptedException {
      if (limit < 1 || limit > MAX_LIMIT) {
        throw CliException.badInput("--limit " + limit + " must be between 1 and " + MAX_LIMIT);
      }
      if (session.remote()) {
        return remote();
      }
      if (watch) {
        throw CliException.badInput(
            "--watch needs the API: pass --server URL or set CARILLON_API_URL");
      }
      Instant from =
          since == null ? null : Times.parse("--since", since, ZoneOffset.UTC, session.clock);
      List<Instance> list = session.db().operator().list(task, status, from, limit);
      Output out = session.output();
      if (out.json()) {
        out.printJson(list);
        return Schedctl.OK;
      }
      Map<String, ZoneId> zones = zonesOf(list);
      out.table(
          Remote.instanceHeaders(),
          list.stream()
              .map(
                  i ->
                      List.of(
                          Long.toString(i.id()),
                          i.taskId(),
                          i.windowKey(),
                          i.status().name(),
                          i.origin().name(),
                          Integer.toString(i.attempt()),
                          i.retryCount() + "/" + i.maxRetry(),
                          i.scheduledAt().toString(),
                          zones.containsKey(i.taskId())
                              ? Times.local(i.scheduledAt(), zones.get(i.taskId()))
                              : "",
                          i.workerId() == null ? "" : i.workerId(),
                          i.failReason() == null ? "" : Output.abbreviate(i.failReason(), 60)))
              .toList());
      return Schedctl.OK;
    }

    private int remote() throws InterruptedException {
      Instant from =
          since == null ? null : Times.parse("--since", since, ZoneOffset.UTC, session.clock);
      dev.carillon.client.InstanceQuery q =
          dev.carillon.client.InstanceQuery.all()
              .withTask(task)
              .between(from, null)
              .withPageSize(Math.min(limit, dev.carillon.client.InstanceQuery.MAX_PAGE));
      if (status != null) {
        q = q.withStatus(status.name());
      }
      Output out = session.output();
      if (!watch) {
        print(out, fetch(q));
        return Schedctl.OK;
      }
      if (interval.compareTo(java.time.Duration.ofSeconds(1)) < 0
          || interval.compareTo(java.time.Duration.ofMinutes(1)) > 0) {
        throw CliException.badInput("--interval " + interval + " must be between 1s and 1m");
      }
      // Redraws only when something changed; ends at --watch-for, or when Ctrl-C ends the JVM
      // (exit 0: watching is the whole job, and an interrupted watch did it).
      Instant end = session.clock.instant().plus(watchFor);
      List<dev.carillon.client.model.InstanceView> shown = null;
      while (true) {
        List<dev.carillon.client.model.InstanceView> now = fetch(q);
        if (!now.equals(shown)) {
          if (!out.json()) {
            out.line("\u001b[H\u001b[2J" + "Every " + interval + ": " + session.clock.instant());
          }
          print(out, now);
          shown = now;
        }
        if (!session.clock.instant().isBefore(end)) {
          return Schedctl.OK;
        }
        session.sleeper.sleep(interval);
      }
    }

    private List<dev.carillon.client.model.InstanceView> fetch(
        dev.carillon.client.InstanceQuery q) {
      return session.api().listInstances(q).limit(limit).toList();
    }

    private static void print(Output out, List<dev.carillon.client.model.InstanceView> list) {
      if (out.json()) {
        out.printJson(list);
        return;
      }
      out.table(Remote.instanceHeaders(), list.stream().map(Remote::instanceRow).toList());
    }

    /** The zones of the listed instances' tasks: scheduled times are shown on their clocks too. */
    private Map<String, ZoneId> zonesOf(List<Instance> list) {
      Map<String, ZoneId> zones = new HashMap<>();
      list.stream()
          .map(Instance::taskId)
          .distinct()
          .forEach(id -> session.taskZone(id).ifPresent(z -> zones.put(id, z)));
      return zones;
    }
  }

  @Command(
      mixinStandardHelpOptions = true,
      name = "instance",
      description = "Show one instance (through the API; describe instance adds its history).")
  static final class One implements Callable<Integer> {
    private final Session session;

    @picocli.CommandLine.Parameters(paramLabel = "ID", description = "the instance id")
    long id;

    One(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      dev.carillon.client.model.InstanceView i = session.api().instance(id);
      Output out = session.output();
      if (out.json()) {
        out.printJson(i);
      } else {
        Remote.instance(out, i, null);
      }
      return Schedctl.OK;
    }
  }
}
