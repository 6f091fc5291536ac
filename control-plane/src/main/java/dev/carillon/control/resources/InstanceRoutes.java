package dev.carillon.control.resources;

import dev.carillon.auth.Role;
import dev.carillon.client.model.ActionRequest;
import dev.carillon.client.model.EventView;
import dev.carillon.client.model.InstanceChange;
import dev.carillon.client.model.InstanceView;
import dev.carillon.client.model.Page;
import dev.carillon.client.model.RerunDeadRequest;
import dev.carillon.client.model.RerunDeadResult;
import dev.carillon.client.model.WhyView;
import dev.carillon.control.ControlPlane;
import dev.carillon.control.web.ApiException;
import dev.carillon.control.web.ApiRequest;
import dev.carillon.control.web.Cursors;
import dev.carillon.control.web.QueryParams;
import dev.carillon.control.web.Reply;
import dev.carillon.control.web.Route;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.instance.WindowStory;
import dev.carillon.model.resume.RerunMode;
import dev.carillon.store.ArchivedInstance;
import dev.carillon.store.InstanceFilter;
import dev.carillon.store.InstancePosition;
import dev.carillon.store.LoadedTask;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** {@code /api/v1/instances}: list, get, events, why, cancel, re-run, bulk re-run of DEAD. */
public final class InstanceRoutes {
  /** The most instances one page holds. */
  public static final int MAX_PAGE = 500;

  /** The most DEAD instances one bulk re-run moves. */
  public static final int MAX_BULK = 500;

  private final ControlPlane plane;

  public InstanceRoutes(ControlPlane plane) {
    this.plane = plane;
  }

  /** The routes, in the order of the OpenAPI document. */
  public List<Route> routes() {
    return List.of(
        new Route(
            "GET",
            "/api/v1/instances",
            Role.VIEWER,
            Set.of("task", "status", "origin", "from", "to", "limit", "cursor"),
            Route.Body.NONE,
            "List instances, newest scheduled first",
            this::list),
        new Route(
            "GET",
            "/api/v1/instances/{id}",
            Role.VIEWER,
            Set.of(),
            Route.Body.NONE,
            "Get one instance, with each attempt's last checkpoint and its effects",
            this::get),
        new Route(
            "GET",
            "/api/v1/instances/{id}/events",
            Role.VIEWER,
            Set.of(),
            Route.Body.NONE,
            "The instance's history, oldest first",
            this::events),
        new Route(
            "GET",
            "/api/v1/instances/{id}/why",
            Role.VIEWER,
            Set.of(),
            Route.Body.NONE,
            "Every decision about the instance's window, as schedctl why tells it",
            this::why),
        new Route(
            "POST",
            "/api/v1/instances/{id}/cancel",
            Role.OPERATOR,
            Set.of(),
            Route.Body.OPTIONAL_JSON,
            "Cancel an instance that has not finished",
            this::cancel),
        new Route(
            "POST",
            "/api/v1/instances/{id}/rerun",
            Role.OPERATOR,
            Set.of(),
            Route.Body.OPTIONAL_JSON,
            "Run a finished instance again, resuming from its checkpoints unless fromScratch",
            this::rerun),
        new Route(
            "POST",
            "/api/v1/instances:rerun-dead",
            Role.OPERATOR,
            Set.of(),
            Route.Body.JSON,
            "Re-run DEAD instances by filter (a dry run unless dryRun is false)",
            this::rerunDead));
  }

  private Reply list(ApiRequest r) {
    QueryParams q = r.query();
    String task = q.string("task").map(t -> Inputs.taskId("task", t)).orElse(null);
    Set<InstanceStatus> statuses = q.enums("status", InstanceStatus.class);
    Set<Origin> origins = q.enums("origin", Origin.class);
    Instant from = q.instant("from").orElse(null);
    Instant to = q.instant("to").orElse(null);
    if (from != null && to != null && !from.isBefore(to)) {
      throw ApiException.badRequest("to", to, "must be after from (" + from + ")");
    }
    int limit = q.integer("limit", 50, 1, MAX_PAGE);
    InstancePosition after = q.string("cursor").map(Cursors::instanceAfter).orElse(null);
    // One row more than asked says whether there is a next page.
    List<Instance> rows =
        plane
            .operator()
            .page(new InstanceFilter(task, statuses, origins, from, to), after, limit + 1);
    String next = null;
    if (rows.size() > limit) {
      rows = rows.subList(0, limit);
      Instance last = rows.get(limit - 1);
      next = Cursors.instanceCursor(new InstancePosition(last.scheduledAt(), last.id()));
    }
    List<InstanceView> items = Views.instances(rows, plane.tasks());
    return Reply.ok(new Page<>(items, next));
  }

  private Reply get(ApiRequest r) {
    Viewed v = view(r);
    Instance i = v.instance();
    boolean live = v.archivedAt() == null;
    return Reply.ok(
        Views.instance(
            i,
            plane.tasks(),
            live
                ? plane.operator().checkpoints(i.id())
                : plane.operator().archivedCheckpoints(i.id()),
            live ? plane.operator().effects(i.id()) : plane.operator().archivedEffects(i.id()),
            v.archivedAt()));
  }

  /** An instance to show, live or archived ({@code archivedAt} null when live). */
  private record Viewed(Instance instance, Instant archivedAt) {}

  /**
   * The instance a read names: live, else from the history tables, so that an archived window stays
   * answerable. Changes go through {@link #find}, which only finds live instances.
   */
  private Viewed view(ApiRequest r) {
    long id = Inputs.instanceId(r.path("id"));
    Optional<Instance> live = plane.operator().find(id);
    if (live.isPresent()) {
      return new Viewed(live.get(), null);
    }
    ArchivedInstance a =
        plane
            .operator()
            .findArchived(id)
            .orElseThrow(() -> ApiException.notFound("id", id, "is not an instance"));
    return new Viewed(a.instance(), a.archivedAt());
  }

  private Instance find(ApiRequest r) {
    long id = Inputs.instanceId(r.path("id"));
    return plane
        .operator()
        .find(id)
        .orElseThrow(
            () ->
                ApiException.notFound(
                    "id",
                    id,
                    plane.operator().findArchived(id).isPresent()
                        ? "was archived; an archived instance can be read, not changed"
                        : "is not an instance"));
  }

  private Reply events(ApiRequest r) {
    Viewed v = view(r);
    long id = v.instance().id();
    ZoneId zone = Views.zone(plane.tasks(), v.instance().taskId());
    List<EventView> events =
        (v.archivedAt() == null ? plane.operator().events(id) : plane.operator().archivedEvents(id))
            .stream().map(e -> Views.event(e, zone)).toList();
    return Reply.ok(events);
  }

  private Reply why(ApiRequest r) {
    Viewed v = view(r);
    Instance i = v.instance();
    Optional<LoadedTask> task = plane.tasks().load(i.taskId());
    WindowStory story =
        WindowStory.of(
            i.taskId(),
            i.windowKey(),
            plane.operator().windowEvents(i.taskId(), i.windowKey()),
            task.flatMap(LoadedTask::definition),
            plane.clock().instant(),
            plane.presence().whyWaiting(i, plane.tasks()));
    List<String> lines = new ArrayList<>();
    lines.add(story.heading());
    if (v.archivedAt() != null) {
      lines.add(
          "Archived "
              + WindowStory.both(v.archivedAt(), story.zone())
              + ": its instance and events are read from the history tables.");
    }
    story.lines().forEach(l -> lines.add("  " + l));
    story.nowLine().ifPresent(l -> lines.add("  " + l));
    ZoneId zone = story.zone().orElse(null);
    return Reply.ok(
        new WhyView(
            story.taskId(),
            story.windowKey(),
            story.events().stream().map(e -> Views.event(e, zone)).toList(),
            lines,
            story.hint().orElse(null),
            story.waiting().orElse(null),
            v.archivedAt(),
            zone == null ? null : zone.getId(),
            Views.locals(zone, "archivedAt", v.archivedAt())));
  }

  private Reply cancel(ApiRequest r) {
    Instance seen = find(r);
    Optional<ActionRequest> body = r.body(ActionRequest.class);
    if (body.map(ActionRequest::fromScratch).isPresent()) {
      throw ApiException.badRequest(
          "fromScratch", body.get().fromScratch(), "belongs to a re-run, not to a cancel");
    }
    String reason = Inputs.reason(body.map(ActionRequest::reason).orElse(null));
    if (!seen.status().canTransitionTo(InstanceStatus.CANCELLED)) {
      throw ApiException.conflict(
          "status",
          seen.status(),
          "instance "
              + seen.id()
              + " cannot be cancelled"
              + (seen.status().isFinished() ? ": it has finished" : ""));
    }
    String why = "cancelled by " + r.actor() + (reason == null ? "" : ": " + reason);
    Instance now =
        plane.operator().cancel(seen, r.actor(), why).orElseThrow(() -> changedMeanwhile(seen));
    return Reply.ok(
        new InstanceChange(seen.status().name(), false, Views.instance(now, plane.tasks())));
  }

  private Reply rerun(ApiRequest r) {
    Instance seen = find(r);
    Optional<ActionRequest> body = r.body(ActionRequest.class);
    String reason = Inputs.reason(body.map(ActionRequest::reason).orElse(null));
    RerunMode mode = mode(body.map(ActionRequest::fromScratch).orElse(null));
    if (!seen.status().isFinished()) {
      throw ApiException.conflict(
          "status",
          seen.status(),
          "instance "
              + seen.id()
              + " has not finished; only "
              + InstanceStatus.FINISHED
              + " instances can be re-run"
              + (seen.status() == InstanceStatus.RUNNING
                  ? " (cancel it first to stop the current run)"
                  : ""));
    }
    String why = "re-run requested by " + r.actor() + (reason == null ? "" : ": " + reason);
    Instance now =
        plane
            .operator()
            .rerun(seen, r.actor(), why, mode)
            .orElseThrow(() -> changedMeanwhile(seen));
    boolean published = !plane.dispatch().publish(List.of(now)).isEmpty();
    return Reply.ok(
        new InstanceChange(seen.status().name(), published, Views.instance(now, plane.tasks())));
  }

  private Reply rerunDead(ApiRequest r) {
    RerunDeadRequest body = r.requireBody(RerunDeadRequest.class);
    String task = body.task() == null ? null : Inputs.taskId("task", body.task());
    if (body.from() != null && body.to() != null && !body.from().isBefore(body.to())) {
      throw ApiException.badRequest("to", body.to(), "must be after from (" + body.from() + ")");
    }
    int limit = body.limit() == null ? 100 : body.limit();
    if (limit < 1 || limit > MAX_BULK) {
      throw ApiException.badRequest("limit", limit, "must be between 1 and " + MAX_BULK);
    }
    String reason = Inputs.reason(body.reason());
    boolean dryRun = body.dryRun() == null || body.dryRun();
    RerunMode mode = mode(body.fromScratch());
    List<Instance> dead =
        plane
            .operator()
            .page(
                new InstanceFilter(
                    task,
                    Set.of(InstanceStatus.DEAD),
                    Set.of(),
                    body.from(),
                    body.to(),
                    failReason(body.failReason())),
                null,
                limit);
    if (dryRun) {
      return Reply.ok(
          new RerunDeadResult(true, dead.size(), 0, 0, dead.stream().map(Instance::id).toList()));
    }
    String why = "bulk re-run of DEAD by " + r.actor() + (reason == null ? "" : ": " + reason);
    Pacer pacer = new Pacer(plane);
    List<Long> moved = new ArrayList<>();
    int published = 0;
    for (int from = 0; from < dead.size(); from += pacer.batch()) {
      List<Instance> batch = dead.subList(from, Math.min(dead.size(), from + pacer.batch()));
      pacer.before(batch.size());
      List<Instance> now = new ArrayList<>();
      for (Instance seen : batch) {
        // Each one fenced by what was read: one that changed meanwhile is left alone.
        plane.operator().rerun(seen, r.actor(), why, mode).ifPresent(now::add);
      }
      now.forEach(i -> moved.add(i.id()));
      published += plane.dispatch().publish(now).size();
    }
    return Reply.ok(new RerunDeadResult(false, dead.size(), moved.size(), published, moved));
  }

  /**
   * A re-run keeps the attempts' checkpoints and effects unless asked: a re-run usually follows a
   * fix, and repeating a post or a charge already made is the expensive surprise.
   */
  private static RerunMode mode(Boolean fromScratch) {
    return Boolean.TRUE.equals(fromScratch) ? RerunMode.FROM_SCRATCH : RerunMode.RESUME;
  }

  /** A failure reason to match exactly: as long as a recorded one may be, at most. */
  private static String failReason(String text) {
    if (text != null && text.length() > dev.carillon.store.Outcome.MAX_REASON) {
      throw ApiException.badRequest(
          "failReason",
          text.substring(0, 40) + "...",
          "must be at most "
              + dev.carillon.store.Outcome.MAX_REASON
              + " characters, as a recorded reason is");
    }
    return text;
  }

  private static ApiException changedMeanwhile(Instance seen) {
    return ApiException.conflict(
        "status",
        seen.status(),
        "instance "
            + seen.id()
            + " changed while this request ran (it is no longer "
            + seen.status()
            + " at attempt "
            + seen.attempt()
            + "); read it again");
  }
}
