package dev.carillon.schedctl;

import dev.carillon.model.Durations;
import dev.carillon.model.InvalidValueException;
import dev.carillon.model.retry.RetryPlan;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.spec.RetryPolicyJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code schedctl retry-plan}: how many exponential retries fit in a recovery time. */
@Command(
    mixinStandardHelpOptions = true,
    name = "retry-plan",
    description =
        "How many exponential retries fit in an acceptable recovery time, counting the waits one after another (5m, 10m, 20m is 35m in all). Connects to nothing.")
final class RetryPlanCommand implements Callable<Integer> {
  private final Session session;

  @Option(
      names = "--recovery",
      required = true,
      paramLabel = "DURATION",
      description = "longest acceptable time from the first failure to the last retry's start")
  Duration recovery;

  @Option(names = "--initial", required = true, paramLabel = "DURATION", description = "first wait")
  Duration initial;

  @Option(
      names = "--multiplier",
      defaultValue = "2",
      paramLabel = "X",
      description = "growth per retry, more than 1 and at most 10 (default 2)")
  double multiplier;

  @Option(
      names = "--cap",
      paramLabel = "DURATION",
      description = "longest single wait (default " + "7d" + ")")
  Duration cap;

  RetryPlanCommand(Session session) {
    this.session = session;
  }

  /** One planned retry. */
  record Step(int retry, Duration delay, Duration startsAfter) {}

  /** The plan, for {@code -o json}. */
  record Plan(
      Duration recovery,
      Duration initial,
      double multiplier,
      Duration cap,
      int retries,
      Duration cumulative,
      List<Step> steps,
      Map<String, Object> policy) {}

  @Override
  public Integer call() {
    RetryPlan plan;
    try {
      plan =
          new RetryPlan(recovery, initial, multiplier, cap == null ? RetryPolicy.MAX_DELAY : cap);
    } catch (InvalidValueException e) {
      throw CliException.badInput("--" + e.problem().field() + ": " + e.problem());
    } catch (IllegalArgumentException e) {
      throw CliException.badInput(e.getMessage());
    }
    List<Step> steps = new ArrayList<>();
    Duration total = Duration.ZERO;
    List<Duration> delays = plan.delays();
    for (int i = 0; i < delays.size(); i++) {
      total = total.plus(delays.get(i));
      steps.add(new Step(i + 1, delays.get(i), total));
    }
    Map<String, Object> policy = RetryPolicyJson.toSpec(plan.toPolicy());
    Output out = session.output();
    if (out.json()) {
      out.printJson(
          new Plan(
              recovery,
              initial,
              multiplier,
              plan.cap(),
              plan.retries(),
              plan.cumulative(),
              steps,
              policy));
      return Schedctl.OK;
    }
    out.line(
        plan.retries()
            + " retr"
            + (plan.retries() == 1 ? "y" : "ies")
            + " fit in "
            + Durations.format(recovery)
            + " (first wait "
            + Durations.format(initial)
            + ", x"
            + multiplier
            + "); the last starts "
            + Durations.format(plan.cumulative())
            + " after the first failure.");
    out.table(
        List.of("RETRY", "WAIT", "STARTS AFTER"),
        steps.stream()
            .map(
                s ->
                    List.of(
                        Integer.toString(s.retry()),
                        Durations.format(s.delay()),
                        Durations.format(s.startsAfter())))
            .toList());
    if (plan.retries() > 0) {
      out.line("Policy: " + RetryPolicyJson.toJson(plan.toPolicy()));
    }
    return Schedctl.OK;
  }
}
