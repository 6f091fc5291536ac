package dev.carillon.control.resources;

import dev.carillon.auth.Role;
import dev.carillon.client.model.ApplyResult;
import dev.carillon.client.model.FieldProblem;
import dev.carillon.control.ControlPlane;
import dev.carillon.control.web.ApiException;
import dev.carillon.control.web.ApiHandler;
import dev.carillon.control.web.ApiRequest;
import dev.carillon.control.web.Reply;
import dev.carillon.control.web.Route;
import dev.carillon.model.task.LateOneShots;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TaskGraph;
import dev.carillon.spec.Format;
import dev.carillon.spec.InvalidSpecException;
import dev.carillon.spec.SpecProblem;
import dev.carillon.spec.SpecReader;
import dev.carillon.store.LoadedTask;
import dev.carillon.store.TaskStore;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code POST /api/v1/tasks:apply} and {@code PUT /api/v1/tasks/{id}}: task specs in, read by the
 * one spec reader ({@link SpecReader}, the same code and messages as {@code schedctl apply}), the
 * dependency graph checked with the stored tasks ({@link TaskGraph}, as {@code schedctl apply}
 * does), one-shots too late to run refused ({@link LateOneShots}), then all applied in one
 * transaction or none.
 */
public final class ApplyRoutes {
  /** Names a request body in the spec reader's problems. */
  static final String SOURCE = "<request>";

  private final ControlPlane plane;

  public ApplyRoutes(ControlPlane plane) {
    this.plane = plane;
  }

  /** The routes, in the order of the OpenAPI document. */
  public List<Route> routes() {
    return List.of(
        new Route(
            "POST",
            "/api/v1/tasks:apply",
            Role.OPERATOR,
            Set.of("dryRun"),
            Route.Body.SPEC,
            "Apply task specs, all or nothing: {\"tasks\": [...]} as JSON, or a YAML task file",
            this::apply),
        new Route(
            "PUT",
            "/api/v1/tasks/{id}",
            Role.OPERATOR,
            Set.of("dryRun"),
            Route.Body.SPEC,
            "Create or replace one task from its spec (the id in the body must be the path's)",
            this::put));
  }

  private Reply apply(ApiRequest r) {
    boolean dryRun = r.query().bool("dryRun").orElse(false);
    List<TaskDefinition> defs = read(r, text -> SpecReader.read(text, format(r), SOURCE));
    return Reply.ok(applyChecked(r, defs, dryRun));
  }

  private Reply put(ApiRequest r) {
    String id = Inputs.taskId("id", r.path("id"));
    boolean dryRun = r.query().bool("dryRun").orElse(false);
    List<TaskDefinition> defs =
        read(r, text -> List.of(SpecReader.readOne(text, format(r), SOURCE)));
    TaskDefinition def = defs.get(0);
    if (!def.id().equals(id)) {
      throw ApiException.badRequest(
          "id",
          def.id(),
          "must be the task id of the path ('" + id + "'); rename by delete and apply");
    }
    ApplyResult result = applyChecked(r, defs, dryRun);
    boolean created = result.tasks().get(0).outcome().equals("created");
    return created ? Reply.created(result) : Reply.ok(result);
  }

  private static Format format(ApiRequest r) {
    return r.header("Content-Type").filter(ApiHandler::isYaml).isPresent()
        ? Format.YAML
        : Format.JSON;
  }

  private static List<TaskDefinition> read(
      ApiRequest r, Function<String, List<TaskDefinition>> reader) {
    if (!r.hasBody()) {
      throw ApiException.badRequest("body", null, "is required: task specs as JSON or YAML");
    }
    try {
      return reader.apply(new String(r.rawBody(), StandardCharsets.UTF_8));
    } catch (InvalidSpecException e) {
      List<FieldProblem> problems = e.problems().stream().map(ApplyRoutes::problem).toList();
      throw ApiException.of(
          400,
          e.problems().size()
              + (e.problems().size() == 1 ? " problem" : " problems")
              + "; nothing applied: "
              + e.problems().stream().map(SpecProblem::text).collect(Collectors.joining("; ")),
          problems);
    }
  }

  /** A spec problem as a field problem: the field (or the whole body), the task in the message. */
  private static FieldProblem problem(SpecProblem p) {
    return new FieldProblem(
        p.field() == null ? "body" : p.field(),
        p.value() == null ? null : String.valueOf(p.value()),
        (p.task() == null ? "" : p.task() + ": ") + p.message(),
        p.line() > 0 ? p.line() : null,
        p.column() > 0 ? p.column() : null);
  }

  private ApplyResult applyChecked(ApiRequest r, List<TaskDefinition> defs, boolean dryRun) {
    // Dependencies may point at stored tasks: check the graph the apply would leave.
    List<TaskDefinition> stored =
        plane.tasks().loadAll().stream().flatMap(t -> t.definition().stream()).toList();
    List<TaskDefinition> all = new ArrayList<>(stored);
    all.addAll(defs);
    List<TaskGraph.GraphProblem> graph = TaskGraph.of(all).problems();
    if (!graph.isEmpty()) {
      throw ApiException.of(
          400,
          graph.size()
              + (graph.size() == 1 ? " dependency problem" : " dependency problems")
              + "; nothing applied: "
              + graph.stream().map(Object::toString).collect(Collectors.joining("; ")),
          graph.stream()
              .map(
                  g ->
                      FieldProblem.of(
                          g.problem().field(),
                          g.problem().value(),
                          "task '" + g.taskId() + "': " + g.problem().message()))
              .toList());
    }
    List<LateOneShots.TaskProblem> late =
        LateOneShots.of(
            defs,
            stored.stream().collect(Collectors.toMap(TaskDefinition::id, d -> d)),
            plane.clock().instant());
    if (!late.isEmpty()) {
      throw ApiException.of(
          400,
          late.size()
              + (late.size() == 1 ? " one-shot" : " one-shots")
              + " too late to run; nothing applied: "
              + late.stream().map(Object::toString).collect(Collectors.joining("; ")),
          late.stream()
              .map(
                  l ->
                      FieldProblem.of(
                          l.problem().field(),
                          l.problem().value(),
                          "task '" + l.taskId() + "': " + l.problem().message()))
              .toList());
    }
    if (dryRun) {
      Map<String, Long> versions =
          plane.tasks().loadAll().stream()
              .collect(Collectors.toMap(LoadedTask::id, LoadedTask::version));
      return new ApplyResult(
          true,
          defs.stream()
              .map(d -> new ApplyResult.Applied(d.id(), versions.getOrDefault(d.id(), 0L), "valid"))
              .toList());
    }
    List<ApplyResult.Applied> out = new ArrayList<>();
    for (TaskStore.Applied a : plane.tasks().apply(defs, r.actor())) {
      out.add(
          new ApplyResult.Applied(
              a.id(), a.version(), a.outcome().name().toLowerCase(Locale.ROOT)));
    }
    return new ApplyResult(false, out);
  }
}
