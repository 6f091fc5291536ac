package dev.carillon.schedctl;

import dev.carillon.client.model.ApplyResult;
import dev.carillon.model.schedule.ZoneWarnings;
import dev.carillon.model.task.LateOneShots;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TaskGraph;
import dev.carillon.spec.InvalidSpecException;
import dev.carillon.store.TaskStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code schedctl apply -f tasks.yaml}: all tasks of a file, or none. */
@Command(
    mixinStandardHelpOptions = true,
    name = "apply",
    description =
        "Validate every task in a YAML (or .json) file, then write all of them in one transaction, or none. Tasks not in the file are left alone; paused flags are kept.")
final class ApplyCommand implements Callable<Integer> {
  private final Session session;

  @Option(
      names = {"-f", "--file"},
      required = true,
      paramLabel = "FILE",
      description = "the task file: YAML, or JSON when the name ends in .json")
  Path file;

  @Option(names = "--dry-run", description = "validate only; connect to nothing, write nothing")
  boolean dryRun;

  ApplyCommand(Session session) {
    this.session = session;
  }

  @Override
  public Integer call() {
    List<TaskDefinition> defs;
    try {
      defs = TaskFile.read(file);
    } catch (InvalidSpecException e) {
      List<String> lines = new ArrayList<>();
      e.problems().forEach(p -> lines.add(p.text()));
      lines.add(
          "schedctl: nothing applied: "
              + e.problems().size()
              + (e.problems().size() == 1 ? " problem" : " problems")
              + " in "
              + file);
      throw CliException.badInput(lines);
    }
    // Accepted, but worth a second look: a fixed offset never follows a place's DST changes.
    for (TaskDefinition d : defs) {
      ZoneWarnings.of("schedule.zone", d.zone())
          .ifPresent(w -> session.err.println("warning: task '" + d.id() + "': " + w));
    }
    Output out = session.output();
    if (session.remote()) {
      // Read here first for the file's name in messages; the API reads it again, with the stored
      // tasks, and applies it all or nothing as the caller.
      ApplyResult r = session.api().applyYaml(text(), dryRun);
      List<Applied> results =
          r.tasks().stream().map(a -> new Applied(a.id(), a.outcome())).toList();
      if (out.json()) {
        out.printJson(Map.of(dryRun ? "valid" : "applied", results));
      } else {
        out.table(
            List.of("TASK", "RESULT"),
            results.stream().map(a -> List.of(a.id(), a.result())).toList());
      }
      return Schedctl.OK;
    }
    if (dryRun) {
      checkGraph(defs, List.of());
      // Without the database a dry run cannot tell a late one-shot from one already stored (which
      // an apply accepts unchanged): it warns instead of refusing.
      LateOneShots.of(defs, Map.of(), session.clock.instant())
          .forEach(
              p ->
                  session.err.println(
                      "warning: "
                          + p
                          + " (an apply refuses it unless that instant is already stored)"));
      if (out.json()) {
        out.printJson(Map.of("valid", defs.stream().map(TaskDefinition::id).toList()));
      } else {
        out.line(defs.size() + " task(s) valid in " + file + "; nothing written (dry run)");
      }
      return Schedctl.OK;
    }
    Db db = session.db();
    // Dependencies may point at tasks already stored: check the graph the apply would leave.
    List<TaskDefinition> stored =
        db.tasks().loadAll().stream().flatMap(t -> t.definition().stream()).toList();
    checkGraph(defs, stored);
    checkLate(defs, stored);
    List<Applied> results = new ArrayList<>();
    for (TaskStore.Applied a : db.tasks().apply(defs, session.actor())) {
      String result =
          switch (a.outcome()) {
            case CREATED -> "created";
            case CHANGED -> "updated";
            case REVIVED -> "revived";
            case UNCHANGED -> "unchanged";
          };
      results.add(new Applied(a.id(), result));
    }
    if (out.json()) {
      out.printJson(Map.of("applied", results));
    } else {
      out.table(
          List.of("TASK", "RESULT"),
          results.stream().map(r -> List.of(r.id(), r.result())).toList());
    }
    return Schedctl.OK;
  }

  /**
   * Refuses the apply (exit 2, nothing written) when the file's tasks, together with {@code
   * stored}, name an unknown upstream, mix window kinds or form a cycle.
   */
  private void checkGraph(List<TaskDefinition> defs, List<TaskDefinition> stored) {
    List<TaskDefinition> all = new ArrayList<>(stored);
    all.addAll(defs);
    // In a dry run stored tasks are unknown, so unknown upstreams are only reported with a
    // database.
    boolean offline = dryRun;
    List<String> lines = new ArrayList<>();
    for (TaskGraph.GraphProblem p : TaskGraph.of(all).problems()) {
      if (offline && p.problem().message().equals("is not a known task")) {
        continue;
      }
      lines.add(p.toString());
    }
    if (!lines.isEmpty()) {
      lines.add(
          "schedctl: nothing applied: "
              + (lines.size() == 1 ? "1 dependency problem" : lines.size() + " dependency problems")
              + " in "
              + file);
      throw CliException.badInput(lines);
    }
  }

  /**
   * Refuses the apply (exit 2, nothing written) when a one-shot's instant is older than its
   * catch-up window, unless that instant is the one already stored ({@link LateOneShots}).
   */
  private void checkLate(List<TaskDefinition> defs, List<TaskDefinition> stored) {
    Map<String, TaskDefinition> byId = new HashMap<>();
    stored.forEach(d -> byId.put(d.id(), d));
    List<String> lines = new ArrayList<>();
    LateOneShots.of(defs, byId, session.clock.instant()).forEach(p -> lines.add(p.toString()));
    if (!lines.isEmpty()) {
      lines.add("schedctl: nothing applied: " + (lines.size()) + " late one-shot(s) in " + file);
      throw CliException.badInput(lines);
    }
  }

  private String text() {
    try {
      return java.nio.file.Files.readString(file);
    } catch (java.io.IOException e) {
      throw CliException.badInput("schedctl: cannot read " + file + ": " + e.getMessage());
    }
  }

  /** One task's outcome: created, updated or unchanged. */
  record Applied(String id, String result) {}
}
