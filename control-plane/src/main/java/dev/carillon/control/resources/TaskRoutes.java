package dev.carillon.control.resources;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.auth.Role;
import dev.carillon.client.model.BackfillRequest;
import dev.carillon.client.model.BackfillResult;
import dev.carillon.client.model.DeleteResult;
import dev.carillon.client.model.FieldProblem;
import dev.carillon.client.model.FireView;
import dev.carillon.client.model.NextFiresView;
import dev.carillon.client.model.Page;
import dev.carillon.client.model.RunRequest;
import dev.carillon.client.model.RunResult;
import dev.carillon.client.model.TaskStateView;
import dev.carillon.client.model.TaskView;
import dev.carillon.client.model.TimeoutSuggestionView;
import dev.carillon.control.ControlPlane;
import dev.carillon.control.web.ApiException;
import dev.carillon.control.web.ApiRequest;
import dev.carillon.control.web.Cursors;
import dev.carillon.control.web.JsonBodies;
import dev.carillon.control.web.QueryParams;
import dev.carillon.control.web.Reply;
import dev.carillon.control.web.Route;
import dev.carillon.model.InvalidValueException;
import dev.carillon.model.instance.BackfillPlan;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.lease.TimeoutAdvice;
import dev.carillon.model.schedule.FireTime;
import dev.carillon.model.schedule.TimeInput;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TaskRules;
import dev.carillon.model.task.TimeTrigger;
import dev.carillon.spec.Format;
import dev.carillon.spec.InvalidSpecException;
import dev.carillon.spec.ParamsOverride;
import dev.carillon.spec.SpecReader;
import dev.carillon.store.LoadedTask;
import dev.carillon.store.RunEvidenceStore;
import dev.carillon.store.TaskStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * {@code /api/v1/tasks}: list, get, next fire times, delete, pause, resume, run now, backfill; and
 * {@code /api/v1/next}, the fire times of an expression not yet saved. (Apply and replace come with
 * the shared spec reader.)
 */
public final class TaskRoutes {
  /** The most tasks one page holds. */
  public static final int MAX_PAGE = 500;

  /** The most fire times one {@code next} call lists. */
  public static final int MAX_NEXT = 1000;

  /** The most recent successes one timeout suggestion reads. */
  public static final int MAX_EVIDENCE_WINDOW = 100_000;

  /** The most windows one API backfill creates; larger ranges are split by the caller. */
  public static final int MAX_BACKFILL = 1000;

  /** The prefix of a run-now's window key. */
  public static final String MANUAL_PREFIX = "manual-";

  /** The spec fields of a preview, by the query parameter that carries each. */
  private static final Map<String, String> PREVIEW_PARAMETERS =
      Map.of("schedule.cron", "cron", "schedule.zone", "zone", "schedule.window", "window");

  /** Printable ASCII without spaces, 1 to 255 characters. */
  private static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[\\x21-\\x7e]{1,255}");

  private final ControlPlane plane;

  public TaskRoutes(ControlPlane plane) {
    this.plane = plane;
  }

  /** The routes, in the order of the OpenAPI document. */
  public List<Route> routes() {
    return List.of(
        new Route(
            "GET",
            "/api/v1/tasks",
            Role.VIEWER,
            Set.of("paused", "handler", "limit", "cursor"),
            Route.Body.NONE,
            "List tasks by id, with each one's next fire time and last outcome",
            this::list),
        new Route(
            "GET",
            "/api/v1/tasks/{id}",
            Role.VIEWER,
            Set.of(),
            Route.Body.NONE,
            "Get one task",
            this::get),
        new Route(
            "DELETE",
            "/api/v1/tasks/{id}",
            Role.OPERATOR,
            Set.of("live", "reason"),
            Route.Body.NONE,
            "Delete a task (soft): it never fires again; its instances and history stay",
            this::delete),
        new Route(
            "GET",
            "/api/v1/tasks/{id}/next",
            Role.VIEWER,
            Set.of("count"),
            Route.Body.NONE,
            "The task's next fire times, with what daylight-saving changes do to them",
            this::next),
        new Route(
            "GET",
            "/api/v1/tasks/{id}/suggest-timeout",
            Role.VIEWER,
            Set.of("window"),
            Route.Body.NONE,
            "The timeout the task's run durations suggest: the P99 of its latest successes x 1.5",
            this::suggestTimeout),
        new Route(
            "GET",
            "/api/v1/next",
            Role.VIEWER,
            Set.of("cron", "zone", "window", "count"),
            Route.Body.NONE,
            "Preview the fire times of a cron expression that is not saved",
            this::preview),
        new Route(
            "POST",
            "/api/v1/tasks/{id}/pause",
            Role.OPERATOR,
            Set.of(),
            Route.Body.NONE,
            "Pause a task: the trigger creates no windows for it",
            r -> setPaused(r, true)),
        new Route(
            "POST",
            "/api/v1/tasks/{id}/resume",
            Role.OPERATOR,
            Set.of(),
            Route.Body.NONE,
            "Resume a paused task",
            r -> setPaused(r, false)),
        new Route(
            "POST",
            "/api/v1/tasks/{id}/runs",
            Role.OPERATOR,
            Set.of(),
            Route.Body.OPTIONAL_JSON,
            "Run a task now: a MANUAL instance (Idempotency-Key: the same key, the same instance)",
            this::runNow),
        new Route(
            "POST",
            "/api/v1/tasks/{id}/backfill",
            Role.OPERATOR,
            Set.of(),
            Route.Body.JSON,
            "Create the missing windows of a past range (a dry run unless dryRun is false)",
            this::backfill));
  }

  private Reply list(ApiRequest r) {
    QueryParams q = r.query();
    Boolean paused = q.bool("paused").orElse(null);
    String handler =
        q.string("handler")
            .map(
                h -> {
                  if (!TaskDefinition.HANDLER_PATTERN.matcher(h).matches()) {
                    throw ApiException.badRequest(
                        "handler", h, "must match " + TaskDefinition.HANDLER_PATTERN.pattern());
                  }
                  return h;
                })
            .orElse(null);
    int limit = q.integer("limit", 50, 1, MAX_PAGE);
    String after = q.string("cursor").map(Cursors::taskAfter).orElse(null);
    List<LoadedTask> rows = plane.tasks().page(paused, handler, after, limit + 1);
    String next = null;
    if (rows.size() > limit) {
      rows = rows.subList(0, limit);
      next = Cursors.taskCursor(rows.get(limit - 1).id());
    }
    Map<String, Instance> last =
        plane.operator().lastFinished(rows.stream().map(LoadedTask::id).toList());
    Instant now = plane.clock().instant();
    List<TaskView> items =
        rows.stream().map(t -> Views.task(t, Optional.ofNullable(last.get(t.id())), now)).toList();
    return Reply.ok(new Page<>(items, next));
  }

  private LoadedTask load(ApiRequest r) {
    String id = Inputs.taskId("id", r.path("id"));
    Optional<LoadedTask> t = plane.tasks().load(id);
    if (t.isPresent()) {
      return t.get();
    }
    Optional<Instant> deleted = plane.tasks().deletedAt(id);
    throw ApiException.notFound(
        "id",
        id,
        deleted
            .map(at -> "was deleted at " + at + " (apply it again to revive it)")
            .orElse("is not a task"));
  }

  private TaskDefinition valid(LoadedTask t) {
    return t.definition()
        .orElseThrow(
            () ->
                ApiException.conflict(
                    "id",
                    t.id(),
                    "is stored but no longer valid: "
                        + t.error().map(Throwable::getMessage).orElse("?")
                        + "; apply a corrected definition"));
  }

  private Reply get(ApiRequest r) {
    LoadedTask t = load(r);
    Map<String, Instance> last = plane.operator().lastFinished(List.of(t.id()));
    return Reply.ok(Views.task(t, Optional.ofNullable(last.get(t.id())), plane.clock().instant()));
  }

  private Reply next(ApiRequest r) {
    int count = r.query().integer("count", 10, 1, MAX_NEXT);
    TaskDefinition d = valid(load(r));
    if (!(d.trigger() instanceof TimeTrigger time)) {
      throw ApiException.conflict(
          "id", d.id(), "has a " + d.triggerKind() + " trigger: it has no fire times");
    }
    List<FireTime> fires = time.fireTimesDetailed(plane.clock().instant(), Instant.MAX, count);
    List<FireView> views = fires.stream().map(f -> Views.fire(f, d)).toList();
    return Reply.ok(
        new NextFiresView(
            d.id(),
            d.zone().getId(),
            time instanceof CronTrigger cron ? cron.cron() : null,
            time.describe(),
            d.paused(),
            views));
  }

  /**
   * The lease from evidence ({@link TimeoutAdvice}), as {@code schedctl suggest-timeout} prints it;
   * without enough successes the suggestion's fields are null, which is not an error.
   */
  private Reply suggestTimeout(ApiRequest r) {
    int window =
        r.query().integer("window", RunEvidenceStore.DEFAULT_WINDOW, 1, MAX_EVIDENCE_WINDOW);
    LoadedTask t = load(r);
    Optional<Duration> current = t.definition().map(TaskDefinition::timeout);
    List<Duration> durations = plane.evidence().recentSuccesses(t.id(), window);
    Optional<TimeoutAdvice> advice = TimeoutAdvice.from(durations);
    return Reply.ok(
        new TimeoutSuggestionView(
            t.id(),
            window,
            durations.size(),
            TimeoutAdvice.MIN_SAMPLES,
            advice.map(a -> a.p99().toString()).orElse(null),
            TimeoutAdvice.FACTOR,
            advice.map(a -> a.suggested().toString()).orElse(null),
            current.map(Duration::toString).orElse(null),
            advice.isPresent() && current.isPresent() && advice.get().isAbove(current.get())));
  }

  /**
   * The fire times of an expression that is not saved: read as a task's schedule by the one spec
   * reader, so its rules and messages are those of an apply (and of {@code schedctl next --cron}).
   */
  private Reply preview(ApiRequest r) {
    QueryParams q = r.query();
    String cron =
        q.string("cron")
            .orElseThrow(
                () -> ApiException.badRequest("cron", null, "is required, e.g. 0 0 8 * * ?"));
    int count = q.integer("count", 10, 1, MAX_NEXT);
    Map<String, String> schedule = new LinkedHashMap<>();
    schedule.put("cron", cron);
    schedule.put("zone", q.string("zone").orElse("UTC"));
    schedule.put("window", q.string("window").orElse(WindowKind.EVERY_FIRE.name()));
    TaskDefinition d;
    try {
      d =
          SpecReader.readOne(
              JsonBodies.JSON.writeValueAsString(
                  Map.of("id", "preview", "handler", "preview", "schedule", schedule)),
              Format.JSON,
              "<preview>");
    } catch (InvalidSpecException e) {
      throw ApiException.badRequest(
          e.problems().stream()
              .map(
                  p ->
                      FieldProblem.of(
                          PREVIEW_PARAMETERS.getOrDefault(p.field(), String.valueOf(p.field())),
                          p.value(),
                          p.message()))
              .toList());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the preview's spec", e);
    }
    CronTrigger trigger = (CronTrigger) d.trigger();
    List<FireView> fires =
        trigger.schedule().fireTimesDetailed(plane.clock().instant(), Instant.MAX, count).stream()
            .map(f -> Views.fire(f, d))
            .toList();
    return Reply.ok(
        new NextFiresView(null, d.zone().getId(), cron, trigger.describe(), false, fires));
  }

  private Reply setPaused(ApiRequest r, boolean paused) {
    LoadedTask before = load(r);
    boolean changed = plane.tasks().setPaused(before.id(), paused, r.actor());
    long version =
        plane.tasks().load(before.id()).map(LoadedTask::version).orElse(before.version());
    return Reply.ok(new TaskStateView(before.id(), paused, changed, version));
  }

  private Reply delete(ApiRequest r) {
    String live = r.query().string("live").orElse("refuse");
    if (!live.equals("refuse") && !live.equals("cancel")) {
      throw ApiException.badRequest("live", live, "must be refuse or cancel");
    }
    String reason = Inputs.reason(r.query().string("reason").orElse(null));
    LoadedTask task = load(r);
    List<String> dependents =
        plane.tasks().loadAll().stream()
            .flatMap(t -> t.definition().stream())
            .filter(d -> d.upstreams().contains(task.id()))
            .map(TaskDefinition::id)
            .toList();
    if (!dependents.isEmpty()) {
      throw ApiException.conflict(
          "id", task.id(), "is an upstream of " + dependents + "; delete or change those first");
    }
    List<Instance> liveNow = plane.operator().live(task.id());
    if (!liveNow.isEmpty() && live.equals("refuse")) {
      throw ApiException.conflict(
          "live",
          "refuse",
          "task '"
              + task.id()
              + "' has "
              + liveNow.size()
              + " live instance(s) "
              + describe(liveNow)
              + "; wait for them, cancel them, or pass live=cancel");
    }
    String why = "deleted by " + r.actor() + (reason == null ? "" : ": " + reason);
    TaskStore.Deleted deleted =
        plane
            .tasks()
            .delete(task.id(), r.actor(), reason)
            .orElseThrow(() -> ApiException.notFound("id", task.id(), "was deleted meanwhile"));
    List<Long> cancelled = new ArrayList<>();
    for (Instance i : liveNow) {
      // Fenced by what was read; one that finished or moved meanwhile is left as it is.
      plane.operator().cancel(i, r.actor(), "task " + why).ifPresent(c -> cancelled.add(c.id()));
    }
    ZoneId zone = task.definition().map(TaskDefinition::zone).orElse(null);
    return Reply.ok(
        new DeleteResult(
            task.id(),
            deleted.version(),
            deleted.deletedAt(),
            cancelled,
            zone == null ? null : zone.getId(),
            Views.locals(zone, "deletedAt", deleted.deletedAt())));
  }

  private static String describe(List<Instance> instances) {
    List<String> parts = new ArrayList<>();
    for (Instance i : instances.subList(0, Math.min(20, instances.size()))) {
      parts.add("#" + i.id() + " " + i.status());
    }
    return "[" + String.join(", ", parts) + (instances.size() > 20 ? ", ..." : "") + "]";
  }

  private Reply runNow(ApiRequest r) {
    TaskDefinition d = valid(load(r));
    Optional<RunRequest> body = r.body(RunRequest.class);
    String override = body.map(RunRequest::params).map(p -> paramsOverride(p, d)).orElse(null);
    Optional<String> key = r.header("Idempotency-Key");
    if (key.isPresent() && !IDEMPOTENCY_KEY.matcher(key.get()).matches()) {
      throw ApiException.badRequest(
          "Idempotency-Key",
          key.get().length() > 60 ? key.get().substring(0, 60) + "..." : key.get(),
          "must be 1 to 255 printable ASCII characters without spaces");
    }
    String windowKey = MANUAL_PREFIX + key.map(TaskRoutes::digest).orElse(random());
    Instant now = plane.clock().instant();
    Window current = d.window().windowOf(now, d.zone());
    NewInstance row =
        NewInstance.pending(
            d.id(),
            new Window(windowKey, current.start(), current.end()),
            now,
            Origin.MANUAL,
            d.timeout(),
            d.retry().maxRetries());
    Optional<Instance> created = plane.windows().createRun(row, override, r.actor());
    if (created.isEmpty()) {
      // The key was used before: the UNIQUE (task, window) index kept the first instance.
      Instance existing =
          plane
              .operator()
              .findByWindow(d.id(), windowKey)
              .orElseThrow(
                  () ->
                      ApiException.conflict(
                          "Idempotency-Key",
                          key.orElse(""),
                          "names a run that was archived; use a new key"));
      return Reply.ok(
          new RunResult(
              false, existing.dispatchedAt() != null, Views.instance(existing, plane.tasks())));
    }
    Instance instance = created.get();
    boolean published = !plane.dispatch().publish(List.of(instance)).isEmpty();
    return Reply.created(new RunResult(true, published, Views.instance(instance, plane.tasks())));
  }

  /**
   * A run-now's params, checked: a JSON object of at most {@link TaskDefinition#MAX_PARAMS_BYTES}
   * bytes that names no agent-kind setting ({@link ParamsOverride#check}), and merged over the
   * task's params still within that size. Answers its compact JSON text.
   */
  private static String paramsOverride(JsonNode params, TaskDefinition d) {
    String text = params.toString();
    List<dev.carillon.model.task.Problem> problems = ParamsOverride.check(text);
    if (problems.isEmpty()) {
      String merged = ParamsOverride.merge(d.paramsJson(), text);
      TaskRules.params("params", merged)
          .ifPresent(
              p ->
                  problems.add(
                      new dev.carillon.model.task.Problem(
                          "params",
                          p.value(),
                          "merged over task '" + d.id() + "''s params, " + p.message())));
    }
    if (!problems.isEmpty()) {
      throw ApiException.badRequest(
          problems.stream()
              .map(p -> FieldProblem.of(p.field(), abbreviate(p.value()), p.message()))
              .toList());
    }
    return text;
  }

  private static String abbreviate(Object value) {
    String v = String.valueOf(value);
    return v.length() > 200 ? v.substring(0, 200) + "..." : v;
  }

  /** A window key part from an idempotency key: 32 hex digits of its SHA-256. */
  private static String digest(String key) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  private static String random() {
    return UUID.randomUUID().toString().replace("-", "");
  }

  private Reply backfill(ApiRequest r) {
    BackfillRequest body = r.requireBody(BackfillRequest.class);
    TaskDefinition d = valid(load(r));
    if (!(d.trigger() instanceof TimeTrigger)) {
      throw ApiException.conflict(
          "id",
          d.id(),
          "has a "
              + d.triggerKind()
              + " trigger; backfill needs fire times from the clock, cron or at (re-run its"
              + " windows instead)");
    }
    if (body.from() == null) {
      throw ApiException.badRequest("from", null, "is required");
    }
    if (body.to() == null) {
      throw ApiException.badRequest("to", null, "is required");
    }
    Instant from = time("from", body.from(), d);
    Instant to = time("to", body.to(), d);
    Instant now = plane.clock().instant();
    if (!from.isBefore(to)) {
      throw ApiException.badRequest(
          "to", body.to(), "must be after from (" + from + "); the range is [from, to)");
    }
    if (to.isAfter(now)) {
      throw ApiException.badRequest(
          "to",
          body.to(),
          "is in the future (now is " + now + "); backfill creates past windows only");
    }
    BackfillPlan plan;
    try {
      plan = BackfillPlan.of(d, from, to);
    } catch (InvalidValueException e) {
      throw ApiException.badRequest(
          e.problem().field(), e.problem().value(), e.problem().message());
    }
    if (plan.rows().size() > MAX_BACKFILL) {
      throw ApiException.badRequest(
          "range",
          "[" + from + ", " + to + ")",
          "holds "
              + plan.rows().size()
              + " windows; one API backfill creates at most "
              + MAX_BACKFILL
              + ": split the range");
    }
    boolean dryRun = body.dryRun() == null || body.dryRun();
    if (dryRun) {
      return Reply.ok(
          new BackfillResult(
              d.id(),
              from,
              to,
              true,
              plan.rows().size(),
              0,
              0,
              0,
              plan.rows().stream().map(n -> n.window().key()).toList(),
              d.zone().getId(),
              Views.locals(d.zone(), "from", from, "to", to)));
    }
    Pacer pacer = new Pacer(plane);
    List<Instance> created = new ArrayList<>();
    int published = 0;
    for (int i = 0; i < plan.rows().size(); i += pacer.batch()) {
      List<NewInstance> rows =
          plan.rows().subList(i, Math.min(plan.rows().size(), i + pacer.batch()));
      pacer.before(rows.size());
      List<Instance> inserted = plane.windows().create(rows, r.actor());
      created.addAll(inserted);
      published += plane.dispatch().publish(inserted).size();
    }
    return Reply.ok(
        new BackfillResult(
            d.id(),
            from,
            to,
            false,
            plan.rows().size(),
            created.size(),
            plan.rows().size() - created.size(),
            published,
            created.stream().map(Instance::windowKey).toList(),
            d.zone().getId(),
            Views.locals(d.zone(), "from", from, "to", to)));
  }

  private static Instant time(String field, String text, TaskDefinition d) {
    try {
      return TimeInput.parse(field, text, d.zone(), null);
    } catch (InvalidValueException e) {
      throw ApiException.badRequest(field, text, e.problem().message());
    }
  }
}
