package dev.carillon.schedctl;

import dev.carillon.model.Durations;
import dev.carillon.model.lease.TimeoutAdvice;
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
 * recent successful runs × 1.5 ({@link TimeoutAdvice}), beside the timeout it has.
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

  /** The answer, for {@code -o json}; durations in ISO-8601. */
  record Suggestion(
      String task,
      int sampleSize,
      String p99,
      double factor,
      String suggestedTimeout,
      String currentTimeout,
      boolean currentBelowP99) {}

  @Override
  public Integer call() {
    if (window < 1 || window > 100_000) {
      throw CliException.badInput("--window must be 1..100000, was " + window);
    }
    Db db = session.db();
    Optional<LoadedTask> loaded = db.tasks().load(task);
    if (loaded.isEmpty()) {
      throw CliException.badInput("no task '" + task + "'");
    }
    Optional<Duration> current =
        loaded.get().definition().map(dev.carillon.model.task.TaskDefinition::timeout);
    List<Duration> durations = new RunEvidenceStore(db.dsl()).recentSuccesses(task, window);
    Optional<TimeoutAdvice> advice = TimeoutAdvice.from(durations);
    Output out = session.output();
    if (advice.isEmpty()) {
      String why =
          "task '"
              + task
              + "' has "
              + durations.size()
              + " successful run(s) in its latest "
              + window
              + "; at least "
              + TimeoutAdvice.MIN_SAMPLES
              + " are needed for a P99";
      if (out.json()) {
        throw CliException.badInput(why);
      }
      out.line("No suggestion: " + why + ".");
      return Schedctl.OK;
    }
    TimeoutAdvice a = advice.get();
    boolean below = current.map(a::isAbove).orElse(false);
    if (out.json()) {
      out.printJson(
          new Suggestion(
              task,
              a.sampleSize(),
              a.p99().toString(),
              TimeoutAdvice.FACTOR,
              a.suggested().toString(),
              current.map(Duration::toString).orElse(null),
              below));
      return Schedctl.OK;
    }
    out.line(
        "Task "
            + task
            + ": suggested timeout "
            + Durations.format(a.suggested())
            + " = P99 "
            + Durations.format(a.p99())
            + " x "
            + TimeoutAdvice.FACTOR
            + " over its last "
            + a.sampleSize()
            + " successful run(s).");
    current.ifPresent(
        t ->
            out.line(
                "Its timeout now is "
                    + Durations.format(t)
                    + (below
                        ? ": below the P99, so about one run in a hundred is stopped at its"
                            + " deadline and runs again."
                        : ".")));
    return Schedctl.OK;
  }
}
