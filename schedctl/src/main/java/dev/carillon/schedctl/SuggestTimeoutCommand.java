package dev.carillon.schedctl;

import dev.carillon.client.model.TimeoutSuggestionView;
import dev.carillon.model.Durations;
import dev.carillon.model.lease.TimeoutAdvice;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.LoadedTask;
import dev.carillon.store.RunEvidenceStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code schedctl suggest-timeout TASK}: the lease length the evidence suggests, P99 of the task's
 * recent successful runs × 1.5 ({@link TimeoutAdvice}), beside the timeout it has. Through the API
 * ({@code GET /api/v1/tasks/{id}/suggest-timeout}) when a server is named, else on the database.
 */
@Command(
    mixinStandardHelpOptions = true,
    name = "suggest-timeout",
    description =
        "Suggest a task's timeout from evidence: the P99 of its recent successful run durations"
            + " x 1.5 (rounded up to a second), with the sample size and the timeout it has now.")
final class SuggestTimeoutCommand implements Callable<Integer> {
  private final Session session;

  @Parameters(index = "0", paramLabel = "TASK")
  String task;

  @Option(
      names = "--window",
      defaultValue = "" + RunEvidenceStore.DEFAULT_WINDOW,
      paramLabel = "N",
      description = "how many of the latest successful runs count (1..100000, default 1000)")
  int window;

  SuggestTimeoutCommand(Session session) {
    this.session = session;
  }

  @Override
  public Integer call() {
    if (window < 1 || window > 100_000) {
      throw CliException.badInput("--window must be 1..100000, was " + window);
    }
    TimeoutSuggestionView v =
        session.remote() ? session.api().suggestTimeout(task, window) : direct();
    Output out = session.output();
    if (out.json()) {
      out.printJson(v);
      return Schedctl.OK;
    }
    if (v.p99() == null) {
      out.line(
          "No suggestion: task '"
              + task
              + "' has "
              + v.sampleSize()
              + " successful run(s) in its latest "
              + v.window()
              + "; at least "
              + v.minSamples()
              + " are needed for a P99.");
      return Schedctl.OK;
    }
    out.line(
        "Task "
            + task
            + ": suggested timeout "
            + Durations.format(Duration.parse(v.suggestedTimeout()))
            + " = P99 "
            + Durations.format(Duration.parse(v.p99()))
            + " x "
            + v.factor()
            + " over its last "
            + v.sampleSize()
            + " successful run(s).");
    if (v.currentTimeout() != null) {
      out.line(
          "Its timeout now is "
              + Durations.format(Duration.parse(v.currentTimeout()))
              + (v.currentBelowP99()
                  ? ": below the P99, so about one run in a hundred is stopped at its"
                      + " deadline and runs again."
                  : "."));
    }
    return Schedctl.OK;
  }

  /** The same answer as the API's, read from the database. */
  private TimeoutSuggestionView direct() {
    Db db = session.db();
    Optional<LoadedTask> loaded = db.tasks().load(task);
    if (loaded.isEmpty()) {
      throw CliException.badInput("no task '" + task + "'");
    }
    Optional<Duration> current = loaded.get().definition().map(TaskDefinition::timeout);
    List<Duration> durations = new RunEvidenceStore(db.dsl()).recentSuccesses(task, window);
    Optional<TimeoutAdvice> advice = TimeoutAdvice.from(durations);
    return new TimeoutSuggestionView(
        task,
        window,
        durations.size(),
        TimeoutAdvice.MIN_SAMPLES,
        advice.map(a -> a.p99().toString()).orElse(null),
        TimeoutAdvice.FACTOR,
        advice.map(a -> a.suggested().toString()).orElse(null),
        current.map(Duration::toString).orElse(null),
        advice.isPresent() && current.isPresent() && advice.get().isAbove(current.get()));
  }
}
