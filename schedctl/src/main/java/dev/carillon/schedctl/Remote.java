package dev.carillon.schedctl;

import dev.carillon.client.CarillonApiException;
import dev.carillon.client.model.EventView;
import dev.carillon.client.model.FieldProblem;
import dev.carillon.client.model.InstanceView;
import dev.carillon.client.model.TaskView;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How schedctl shows what the control-plane API answers: its errors as exit codes and lines, and
 * its wire records as tables and field lists (times in UTC and, where the task's zone is known, on
 * its wall clock).
 */
final class Remote {
  private Remote() {}

  /**
   * Prints an API error, one line per field at fault, and answers the exit code: a refused request
   * (4xx, nothing changed) is bad input, a failed server is a failed dependency.
   */
  static int report(CarillonApiException e, PrintStream err) {
    err.println("schedctl: " + e.getMessage());
    for (FieldProblem p : e.problems()) {
      StringBuilder line = new StringBuilder("  ").append(p.field());
      line.append(p.value() == null ? "=<missing>" : "='" + p.value() + "'");
      if (p.line() != null) {
        line.append(" (line ").append(p.line());
        line.append(p.column() == null ? ")" : ", column " + p.column() + ")");
      }
      line.append(": ").append(p.message());
      err.println(line);
    }
    if (e.status() == 401) {
      err.println("  set CARILLON_API_TOKEN to a token the server knows (schedctl token new)");
    }
    return e.isClientError() ? Schedctl.BAD_INPUT : Schedctl.UNREACHABLE;
  }

  static void tasks(Output out, List<TaskView> tasks) {
    List<List<String>> rows = new ArrayList<>();
    for (TaskView t : tasks) {
      if (t.error() != null) {
        rows.add(
            List.of(t.id(), "INVALID: " + Output.abbreviate(t.error(), 100), "", "", "", "", ""));
        continue;
      }
      rows.add(
          List.of(
              t.id(),
              t.handler(),
              t.trigger() == null ? "" : t.trigger().text(),
              t.paused() ? "yes" : "no",
              t.nextFire() == null
                  ? noNextFire(t)
                  : t.nextFire().utc() + " (" + t.nextFire().local() + ")",
              t.lastOutcome() == null
                  ? ""
                  : t.lastOutcome().status() + " " + t.lastOutcome().windowKey(),
              Long.toString(t.version())));
    }
    out.table(
        List.of("TASK", "HANDLER", "TRIGGER", "PAUSED", "NEXT FIRE", "LAST", "VERSION"), rows);
  }

  /** What the next-fire column says without one: a one-shot that is past says so. */
  private static String noNextFire(TaskView t) {
    return t.trigger() != null && "AT".equals(t.trigger().kind()) && !t.paused()
        ? "none (one-shot: its instant has passed)"
        : "";
  }

  static void task(Output out, TaskView t) {
    List<List<String>> f = new ArrayList<>();
    f.add(List.of("id", t.id()));
    if (t.error() != null) {
      f.add(List.of("error", t.error()));
      f.add(List.of("version", Long.toString(t.version())));
      out.fields(f);
      return;
    }
    f.add(List.of("handler", t.handler()));
    f.add(List.of("trigger", t.trigger() == null ? "" : t.trigger().text()));
    f.add(List.of("zone", str(t.zone())));
    f.add(List.of("window", str(t.window())));
    f.add(List.of("overlap", str(t.overlap())));
    f.add(List.of("catch-up", str(t.catchup())));
    f.add(List.of("timeout", str(t.timeout())));
    f.add(List.of("retry", t.retry() == null ? "" : t.retry().toString()));
    f.add(List.of("params", t.params() == null ? "" : t.params().toString()));
    f.add(List.of("paused", Boolean.toString(t.paused())));
    f.add(List.of("version", Long.toString(t.version())));
    f.add(
        List.of(
            "next fire",
            t.nextFire() == null
                ? noNextFire(t)
                : t.nextFire().utc()
                    + "  ("
                    + t.nextFire().local()
                    + (t.nextFire().note() == null ? "" : "; " + t.nextFire().note())
                    + ")"));
    f.add(
        List.of(
            "last outcome",
            t.lastOutcome() == null
                ? ""
                : "#"
                    + t.lastOutcome().instanceId()
                    + " "
                    + t.lastOutcome().status()
                    + " window "
                    + t.lastOutcome().windowKey()
                    + " finished "
                    + both(
                        t.lastOutcome().finishedAt(), t.lastOutcome().local().get("finishedAt"))));
    out.fields(f);
  }

  static List<String> instanceHeaders() {
    return List.of(
        "ID",
        "TASK",
        "WINDOW",
        "STATUS",
        "ORIGIN",
        "ATTEMPT",
        "RETRIES",
        "SCHEDULED",
        "LOCAL",
        "WORKER",
        "REASON");
  }

  static List<String> instanceRow(InstanceView i) {
    return List.of(
        Long.toString(i.id()),
        i.taskId(),
        i.windowKey(),
        i.status(),
        i.origin(),
        Integer.toString(i.attempt()),
        i.retryCount() + "/" + i.maxRetry(),
        String.valueOf(i.scheduledAt()),
        i.local().getOrDefault("scheduledAt", ""),
        str(i.workerId()),
        i.failReason() == null ? "" : Output.abbreviate(i.failReason(), 60));
  }

  static void instance(Output out, InstanceView i, List<EventView> events) {
    Map<String, String> local = i.local();
    List<List<String>> f = new ArrayList<>();
    f.add(List.of("id", Long.toString(i.id())));
    f.add(List.of("task", i.taskId() + (i.zone() == null ? "" : "  (zone " + i.zone() + ")")));
    f.add(List.of("window", i.windowKey() + "  [" + i.windowStart() + ", " + i.windowEnd() + ")"));
    if (local.containsKey("windowStart")) {
      f.add(
          List.of(
              "window local",
              "[" + local.get("windowStart") + ", " + local.getOrDefault("windowEnd", "") + ")"));
    }
    f.add(List.of("status", i.status()));
    if (i.archivedAt() != null) {
      f.add(
          List.of(
              "archived",
              both(i.archivedAt(), local.get("archivedAt")) + "  (read from the history tables)"));
    }
    f.add(List.of("origin", i.origin()));
    f.add(List.of("scheduled", both(i.scheduledAt(), local.get("scheduledAt"))));
    f.add(List.of("attempt", Integer.toString(i.attempt())));
    f.add(List.of("retries", i.retryCount() + " of " + i.maxRetry()));
    f.add(List.of("next attempt", both(i.nextAttemptAt(), local.get("nextAttemptAt"))));
    f.add(List.of("lease until", both(i.leaseUntil(), local.get("leaseUntil"))));
    f.add(List.of("timeout", str(i.timeout())));
    f.add(List.of("worker", str(i.workerId())));
    f.add(
        List.of(
            "progress",
            i.progress() == null
                ? ""
                : i.progress()
                    + " (reported "
                    + both(i.progressAt(), local.get("progressAt"))
                    + ")"));
    f.add(
        List.of(
            "params override", i.paramsOverride() == null ? "" : i.paramsOverride().toString()));
    f.add(List.of("non-retryable", Boolean.toString(i.nonRetryable())));
    f.add(List.of("result", str(i.resultSummary()) + (i.resultTruncated() ? " (truncated)" : "")));
    f.add(List.of("result uri", str(i.resultUri())));
    f.add(List.of("fail reason", str(i.failReason())));
    f.add(List.of("started", both(i.startedAt(), local.get("startedAt"))));
    f.add(List.of("finished", both(i.finishedAt(), local.get("finishedAt"))));
    f.add(List.of("dispatched", both(i.dispatchedAt(), local.get("dispatchedAt"))));
    f.add(List.of("created", both(i.createdAt(), local.get("createdAt"))));
    f.add(List.of("updated", both(i.updatedAt(), local.get("updatedAt"))));
    out.fields(f);
    if (events == null) {
      return;
    }
    out.line("");
    out.line("Events:");
    boolean zoned = i.zone() != null;
    out.table(
        zoned ? List.of("AT", "LOCAL", "EVENT") : List.of("AT", "EVENT"),
        events.stream()
            .map(
                e ->
                    zoned
                        ? List.of(
                            String.valueOf(e.at()), e.local().getOrDefault("at", ""), e.text())
                        : List.of(String.valueOf(e.at()), e.text()))
            .toList());
  }

  /** An instant in UTC with its wall-clock reading beside it, when there is one. */
  static String both(Instant utc, String local) {
    if (utc == null) {
      return "";
    }
    return local == null ? utc.toString() : utc + "  (" + local + ")";
  }

  private static String str(Object o) {
    return o == null ? "" : o.toString();
  }
}
