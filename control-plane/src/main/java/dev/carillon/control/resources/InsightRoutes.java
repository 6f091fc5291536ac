package dev.carillon.control.resources;

import dev.carillon.auth.Role;
import dev.carillon.client.model.AttemptView;
import dev.carillon.client.model.DeadGroupView;
import dev.carillon.client.model.OverviewView;
import dev.carillon.client.model.TaskRetryView;
import dev.carillon.control.ControlPlane;
import dev.carillon.control.Insight;
import dev.carillon.control.web.ApiException;
import dev.carillon.control.web.ApiRequest;
import dev.carillon.control.web.JsonBodies;
import dev.carillon.control.web.Reply;
import dev.carillon.control.web.Route;
import dev.carillon.model.Durations;
import dev.carillon.model.instance.Attempts;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.retry.PlannedRetries;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.tuning.EffectivePolicy;
import dev.carillon.model.tuning.TuningKey;
import dev.carillon.model.tuning.TuningValue;
import dev.carillon.model.tuning.Versioned;
import dev.carillon.spec.ConfigReplay;
import dev.carillon.spec.RetryPolicyJson;
import dev.carillon.store.LoadedTask;
import dev.carillon.store.OverviewQueries;
import dev.carillon.store.ScanRecords;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The read-only summaries an operator looks at first (the web console's pages read them): the
 * overview, the DEAD instances grouped by task and reason, a task's retry policy in force with its
 * plan, and an instance's attempts.
 */
public final class InsightRoutes {
  /** The most hours the overview counts back. */
  public static final int MAX_HOURS = 168;

  /** The hours the overview counts back when the request does not say. */
  public static final int DEFAULT_HOURS = 24;

  /** The most dead-letter groups one call lists. */
  public static final int MAX_GROUPS = 500;

  /** What the overview says while the schema has no worker presence. */
  public static final String WORKERS_UNKNOWN =
      "this version keeps no worker presence: workers report to no table yet";

  private final ControlPlane plane;
  private final Insight insight;
  private final HourCounts hourCounts;

  public InsightRoutes(ControlPlane plane, Insight insight) {
    this.plane = plane;
    this.insight = insight;
    this.hourCounts = new HourCounts(insight.overview()::perHour, MAX_HOURS, System::nanoTime);
  }

  /**
   * Counts the earlier hours of the overview's default window ({@link #DEFAULT_HOURS}) ahead of its
   * first request; see {@link HourCounts#warmUp}. Blocks for those statements.
   *
   * @return the hours counted
   */
  public int warmUp() {
    Instant now = plane.clock().instant();
    Instant to = now.truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
    return hourCounts.warmUp(to.minus(Duration.ofHours(DEFAULT_HOURS)), now);
  }

  /** The routes, in the order of the OpenAPI document. */
  public List<Route> routes() {
    return List.of(
        new Route(
            "GET",
            "/api/v1/overview",
            Role.VIEWER,
            Set.of("hours"),
            Route.Body.NONE,
            "Instances by status now and per hour, fire lag, DEAD, the trigger leader, the retry"
                + " service's last scan",
            this::overview),
        new Route(
            "GET",
            "/api/v1/dead-letters",
            Role.VIEWER,
            Set.of("task", "limit"),
            Route.Body.NONE,
            "DEAD instances grouped by task and failure reason, the largest group first",
            this::deadLetters),
        new Route(
            "GET",
            "/api/v1/tasks/{id}/retry",
            Role.VIEWER,
            Set.of(),
            Route.Body.NONE,
            "The retry policy in force for a task, where it comes from, and its plan",
            this::taskRetry),
        new Route(
            "GET",
            "/api/v1/instances/{id}/attempts",
            Role.VIEWER,
            Set.of(),
            Route.Body.NONE,
            "An instance's attempts: worker, start, end, outcome and reason",
            this::attempts));
  }

  private Reply overview(ApiRequest r) {
    int hours = r.query().integer("hours", DEFAULT_HOURS, 1, MAX_HOURS);
    Instant now = plane.clock().instant();
    OverviewQueries q = insight.overview();

    Map<String, Long> live = new LinkedHashMap<>();
    q.liveCounts().forEach((s, n) -> live.put(s.name(), n));

    Instant to = now.truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
    Instant from = to.minus(Duration.ofHours(hours));
    Map<Instant, Map<String, Long>> byHour = new TreeMap<>();
    for (Instant h = from; h.isBefore(to); h = h.plus(Duration.ofHours(1))) {
      byHour.put(h, new TreeMap<>());
    }
    for (OverviewQueries.HourCount c : hourCounts.perHour(from, to, now)) {
      byHour.computeIfAbsent(c.hour(), h -> new TreeMap<>()).put(c.status().name(), c.count());
    }
    List<OverviewView.Hour> perHour = new ArrayList<>();
    byHour.forEach((h, counts) -> perHour.add(new OverviewView.Hour(h, counts)));

    Instant lagFrom = now.minus(Duration.ofHours(1));
    OverviewQueries.FireLag lag = q.fireLag(lagFrom, now);

    Insight.Leadership trigger = insight.trigger();
    OverviewView.Scan scan = insight.scans().latest().map(InsightRoutes::scan).orElse(null);
    return Reply.ok(
        new OverviewView(
            now,
            live,
            q.deadCount(),
            perHour,
            new OverviewView.FireLag(
                lagFrom,
                lag.windows(),
                lag.p50().toMillis(),
                lag.p95().toMillis(),
                lag.max().toMillis()),
            new OverviewView.Leader(trigger.leader().orElse(null), trigger.self()),
            scan,
            new OverviewView.Workers(false, WORKERS_UNKNOWN, List.of())));
  }

  private static OverviewView.Scan scan(ScanRecords.Pass p) {
    return new OverviewView.Scan(
        p.holder(),
        p.leader(),
        p.startedAt(),
        p.finishedAt(),
        Math.max(0, Duration.between(p.startedAt(), p.finishedAt()).toMillis()),
        p.complete(),
        p.timedOut(),
        p.retried(),
        p.dead(),
        p.promoted(),
        p.republished(),
        p.heldBack(),
        p.archived());
  }

  private Reply deadLetters(ApiRequest r) {
    String task = r.query().string("task").map(t -> Inputs.taskId("task", t)).orElse(null);
    int limit = r.query().integer("limit", 100, 1, MAX_GROUPS);
    List<OverviewQueries.DeadGroup> groups = insight.overview().deadGroups(task, limit);
    // Each group is one task's, so each row is shown on its own task's clock.
    Map<String, ZoneId> zones =
        plane
            .tasks()
            .zones(
                groups.stream().map(OverviewQueries.DeadGroup::taskId).collect(Collectors.toSet()));
    return Reply.ok(
        groups.stream()
            .map(
                g -> {
                  ZoneId zone = zones.get(g.taskId());
                  return new DeadGroupView(
                      g.taskId(),
                      g.reason(),
                      g.count(),
                      g.firstFinishedAt(),
                      g.lastFinishedAt(),
                      g.newestId(),
                      zone == null ? null : zone.getId(),
                      Views.locals(
                          zone,
                          "firstFinishedAt",
                          g.firstFinishedAt(),
                          "lastFinishedAt",
                          g.lastFinishedAt()));
                })
            .toList());
  }

  private Reply taskRetry(ApiRequest r) {
    String id = Inputs.taskId("id", r.path("id"));
    LoadedTask task =
        plane.tasks().load(id).orElseThrow(() -> ApiException.notFound("id", id, "is not a task"));
    Optional<TaskDefinition> definition = task.definition();
    ConfigReplay replay = ConfigReplay.of(plane.config().readAll());
    EffectivePolicy effective =
        EffectivePolicy.choose(
            override(replay, TuningKey.retryTask(id)),
            definition.map(TaskDefinition::retry),
            task.version(),
            override(replay, TuningKey.retryDefault()));
    Instant now = plane.clock().instant();
    List<TaskRetryView.Step> steps = new ArrayList<>();
    String deadReason;
    if (definition.isPresent()) {
      TaskDefinition d = definition.get();
      PlannedRetries plan =
          PlannedRetries.of(effective.policy(), now, d.window().windowOf(now, d.zone()));
      plan.steps()
          .forEach(
              s ->
                  steps.add(
                      new TaskRetryView.Step(
                          s.retry(),
                          Durations.format(s.delay()),
                          Durations.format(s.after()),
                          s.reason())));
      deadReason = plan.deadReason();
    } else {
      deadReason = "the stored definition cannot be read, so no window to plan in";
    }
    return Reply.ok(
        new TaskRetryView(
            id,
            effective.source().name(),
            effective.version(),
            effective.describe(id),
            JsonBodies.JSON.valueToTree(RetryPolicyJson.toSpec(effective.policy())),
            steps,
            deadReason));
  }

  private static Optional<Versioned<RetryPolicy>> override(ConfigReplay replay, TuningKey key) {
    ConfigReplay.InForce f = replay.inForce().get(key.toString());
    if (f == null || !(f.value() instanceof TuningValue.RetryOverride o)) {
      return Optional.empty();
    }
    return Optional.of(new Versioned<>(o.policy(), f.record().offset()));
  }

  private Reply attempts(ApiRequest r) {
    long id = Inputs.instanceId(r.path("id"));
    Instance i =
        plane
            .operator()
            .find(id)
            .orElseThrow(
                () -> ApiException.notFound("id", id, "is not an instance (or it was archived)"));
    Instant now = plane.clock().instant();
    ZoneId zone = Views.zone(plane.tasks(), i.taskId());
    List<AttemptView> out = new ArrayList<>();
    for (Attempts.Attempt a : Attempts.of(plane.operator().events(i.id()))) {
      out.add(
          new AttemptView(
              a.number(),
              a.worker(),
              a.startedAt(),
              a.endedAt(),
              a.outcome() == null ? null : a.outcome().name(),
              a.reason(),
              a.duration(now).toMillis(),
              zone == null ? null : zone.getId(),
              Views.locals(zone, "startedAt", a.startedAt(), "endedAt", a.endedAt())));
    }
    return Reply.ok(out);
  }
}
