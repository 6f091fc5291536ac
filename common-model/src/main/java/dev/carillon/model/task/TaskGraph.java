package dev.carillon.model.task;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The dependency graph of a whole set of task definitions, and the rules that span tasks: every
 * upstream exists, a task and all its upstreams share one window kind (so a window key means the
 * same window on both sides), and there is no cycle. Pure: {@code schedctl apply} checks the file's
 * tasks together with those already stored, and the trigger uses {@link #downstreams} to find whom
 * a completed window releases.
 */
public final class TaskGraph {
  /**
   * One rule broken by one task.
   *
   * @param taskId the task whose definition must change
   * @param problem the field, value and rule
   */
  public record GraphProblem(String taskId, Problem problem) {
    public GraphProblem {
      Objects.requireNonNull(taskId, "taskId");
      Objects.requireNonNull(problem, "problem");
    }

    @Override
    public String toString() {
      return "task '" + taskId + "': " + problem;
    }
  }

  private final Map<String, TaskDefinition> tasks;
  private final Map<String, List<TaskDefinition>> downstreams;
  private final List<GraphProblem> problems;

  private TaskGraph(Map<String, TaskDefinition> tasks) {
    this.tasks = tasks;
    Map<String, List<TaskDefinition>> down = new HashMap<>();
    for (TaskDefinition t : tasks.values()) {
      for (String up : t.upstreams()) {
        down.computeIfAbsent(up, k -> new ArrayList<>()).add(t);
      }
    }
    down.replaceAll((k, v) -> List.copyOf(v));
    this.downstreams = down;
    this.problems = List.copyOf(check());
  }

  /**
   * The graph of {@code defs}; a later definition with the same id replaces an earlier one, so
   * {@code concat(stored, fromFile)} gives the graph after an apply.
   */
  public static TaskGraph of(Collection<TaskDefinition> defs) {
    Map<String, TaskDefinition> byId = new TreeMap<>();
    defs.forEach(d -> byId.put(d.id(), d));
    return new TaskGraph(byId);
  }

  /** Every broken cross-task rule, in task-id order; empty when the set is consistent. */
  public List<GraphProblem> problems() {
    return problems;
  }

  /** Whether any task waits for another (a dependency trigger). */
  public boolean hasDependencies() {
    return !downstreams.isEmpty();
  }

  /** The tasks that list {@code taskId} in {@code after}, in task-id order. */
  public List<TaskDefinition> downstreams(String taskId) {
    return downstreams.getOrDefault(taskId, List.of());
  }

  /** The definition of {@code taskId}, or {@code null}. */
  public TaskDefinition task(String taskId) {
    return tasks.get(taskId);
  }

  private List<GraphProblem> check() {
    List<GraphProblem> out = new ArrayList<>();
    for (TaskDefinition t : tasks.values()) {
      Map<String, TaskDefinition> known = new LinkedHashMap<>();
      for (int i = 0; i < t.upstreams().size(); i++) {
        String up = t.upstreams().get(i);
        TaskDefinition u = tasks.get(up);
        if (u == null) {
          out.add(
              new GraphProblem(t.id(), new Problem("after[" + i + "]", up, "is not a known task")));
        } else {
          known.put(up, u);
        }
      }
      if (known.isEmpty()) {
        continue;
      }
      boolean mixed = known.values().stream().map(TaskDefinition::window).distinct().count() > 1;
      if (mixed) {
        String kinds =
            known.values().stream()
                .map(u -> u.id() + " (" + u.window() + ")")
                .collect(Collectors.joining(", "));
        out.add(
            new GraphProblem(
                t.id(),
                new Problem(
                    "after",
                    kinds,
                    "upstreams have different window kinds; a window key must mean the same"
                        + " window for every upstream")));
      } else {
        var kind = known.values().iterator().next().window();
        if (kind != t.window()) {
          out.add(
              new GraphProblem(
                  t.id(),
                  new Problem(
                      "schedule.window",
                      t.window(),
                      "must equal the upstreams' window kind "
                          + kind
                          + " (set window: "
                          + kind
                          + ")")));
        }
      }
    }
    findCycles(out);
    return out;
  }

  /** Depth-first search with colours; each cycle is reported once, against its smallest task id. */
  private void findCycles(List<GraphProblem> out) {
    Map<String, Integer> colour = new HashMap<>(); // absent: new, 1: on the path, 2: done
    List<String> path = new ArrayList<>();
    java.util.Set<String> reported = new java.util.HashSet<>();
    for (String id : tasks.keySet()) {
      visit(id, colour, path, out, reported);
    }
  }

  private void visit(
      String id,
      Map<String, Integer> colour,
      List<String> path,
      List<GraphProblem> out,
      java.util.Set<String> reported) {
    Integer c = colour.get(id);
    if (c != null && c == 2) {
      return;
    }
    TaskDefinition t = tasks.get(id);
    if (t == null) {
      return; // unknown upstream, reported elsewhere
    }
    colour.put(id, 1);
    path.add(id);
    for (String up : t.upstreams()) {
      if (Integer.valueOf(1).equals(colour.get(up))) {
        List<String> cycle = new ArrayList<>(path.subList(path.indexOf(up), path.size()));
        // Edges point from a task to its upstream; read the cycle in execution order.
        Collections.reverse(cycle);
        int first = cycle.indexOf(Collections.min(cycle));
        List<String> rotated = new ArrayList<>(cycle.subList(first, cycle.size()));
        rotated.addAll(cycle.subList(0, first));
        String text = String.join(" -> ", rotated) + " -> " + rotated.get(0);
        if (reported.add(text)) {
          out.add(
              new GraphProblem(
                  rotated.get(0), new Problem("after", text, "dependencies form a cycle")));
        }
      } else {
        visit(up, colour, path, out, reported);
      }
    }
    path.remove(path.size() - 1);
    colour.put(id, 2);
  }
}
