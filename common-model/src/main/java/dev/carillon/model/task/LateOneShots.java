package dev.carillon.model.task;

import dev.carillon.model.Durations;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The apply rule for one-shots: a one-shot whose instant is older than its catch-up window when it
 * is applied would never run (the trigger would only record it SKIPPED), so the apply is refused,
 * naming the task, {@code at} and how late it is. That is almost always a mistake in the instant (a
 * wrong year, a local time read as UTC), and an application that schedules from code learns it at
 * once rather than from a SKIPPED row later.
 *
 * <p>A one-shot whose instant is already stored is not checked again, so applying the same file
 * after the one-shot fired (a whole task file applied on every deploy) stays an unchanged no-op.
 * Pure.
 */
public final class LateOneShots {
  private LateOneShots() {}

  /**
   * The problems of {@code applying}, each naming its task in the message.
   *
   * @param stored the stored definitions by id (deleted ones left out)
   * @param now the instant of the apply
   */
  public static List<TaskProblem> of(
      List<TaskDefinition> applying, Map<String, TaskDefinition> stored, Instant now) {
    List<TaskProblem> out = new ArrayList<>();
    for (TaskDefinition d : applying) {
      if (!(d.trigger() instanceof AtTrigger at) || !at.missedAt(now, d.catchup())) {
        continue;
      }
      TaskDefinition before = stored.get(d.id());
      if (before != null && before.trigger() instanceof AtTrigger was && was.at().equals(at.at())) {
        continue;
      }
      Duration late = Duration.between(at.at(), now).withNanos(0);
      out.add(
          new TaskProblem(
              d.id(),
              new Problem(
                  "at",
                  at.at().toString(),
                  "is "
                      + Durations.format(late)
                      + " before now ("
                      + now.truncatedTo(ChronoUnit.SECONDS)
                      + "), beyond the task's catch-up window ("
                      + Durations.format(d.catchup())
                      + "): it would never run; give a later instant (or a longer catchup)")));
    }
    return out;
  }

  /** A problem of one task. */
  public record TaskProblem(String taskId, Problem problem) {
    @Override
    public String toString() {
      return "task '" + taskId + "': " + problem;
    }
  }
}
