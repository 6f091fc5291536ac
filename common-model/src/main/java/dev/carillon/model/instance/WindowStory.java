package dev.carillon.model.instance;

import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.TaskDefinition;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Every decision made about one window of a task, in order, told in plain words: created, skipped
 * and why, claimed by whom, failed why, retried when, dead why, re-run or cancelled by whom. {@code
 * schedctl why} prints it and the API's {@code GET /instances/{id}/why} returns it, so both tell
 * the same story. Pure: the caller reads the events and the definition.
 *
 * @param events the window's events, oldest first
 * @param lines one line per event: {@code <at> [#<instance> ]<text>}
 * @param hint when nothing was ever decided about the window, what the task's window keys look like
 *     (empty when events exist or the definition is unknown)
 * @param waiting why the window's instance, PENDING now, waits for a worker ("no worker serves
 *     queue gpu with handler summarize (...)"; see {@code Coverage.waitingReason}), or empty
 */
public record WindowStory(
    String taskId,
    String windowKey,
    List<InstanceEvent> events,
    Optional<ZoneId> zone,
    List<String> lines,
    Optional<String> hint,
    Optional<String> waiting) {

  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssxxx");

  public WindowStory {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(windowKey, "windowKey");
    events = List.copyOf(events);
    Objects.requireNonNull(zone, "zone");
    lines = List.copyOf(lines);
    Objects.requireNonNull(hint, "hint");
    Objects.requireNonNull(waiting, "waiting");
  }

  /**
   * Tells the story of {@code events}.
   *
   * @param definition the task's valid definition, if known, for the hint
   * @param now the instant whose window the hint shows as an example key
   */
  public static WindowStory of(
      String taskId,
      String windowKey,
      List<InstanceEvent> events,
      Optional<TaskDefinition> definition,
      Instant now) {
    return of(taskId, windowKey, events, definition, now, Optional.empty());
  }

  /**
   * Tells the story of {@code events}, ending with why the window's instance waits for a worker.
   *
   * @param waiting the reason the window's PENDING instance waits for a worker, if it does (the
   *     caller reads the workers' presence)
   */
  public static WindowStory of(
      String taskId,
      String windowKey,
      List<InstanceEvent> events,
      Optional<TaskDefinition> definition,
      Instant now,
      Optional<String> waiting) {
    Optional<ZoneId> zone = definition.map(TaskDefinition::zone);
    List<String> lines =
        events.stream()
            .map(
                e ->
                    both(e.at(), zone)
                        + "  "
                        + (e.instanceId() == null ? "" : "#" + e.instanceId() + " ")
                        + EventText.of(e))
            .toList();
    Optional<String> hint =
        events.isEmpty() ? definition.map(d -> keyHint(d, now)) : Optional.empty();
    return new WindowStory(taskId, windowKey, events, zone, lines, hint, waiting);
  }

  /**
   * {@code at} in UTC and, when the zone is known, on its wall clock: {@code 2026-03-08T07:00:00Z
   * (2026-03-08T03:00:00-04:00)}.
   */
  public static String both(Instant at, Optional<ZoneId> zone) {
    return at + zone.map(z -> " (" + at.atZone(z).format(LOCAL) + ")").orElse("");
  }

  /** The first line of the story, before its events. */
  public String heading() {
    return events.isEmpty()
        ? "Nothing was ever decided about window '" + windowKey + "' of task '" + taskId + "'."
        : "Window '"
            + windowKey
            + "' of task '"
            + taskId
            + "'"
            + zone.map(z -> " (times in UTC and " + z + ")").orElse("")
            + ":";
  }

  /** The last line of the story when its instance waits for a worker: {@code now PENDING, ...}. */
  public Optional<String> nowLine() {
    return waiting.map(w -> "now  PENDING, waiting for a worker: " + w);
  }

  private static String keyHint(TaskDefinition d, Instant now) {
    if (d.trigger() instanceof AtTrigger at) {
      return "it is a one-shot "
          + at.describe()
          + ": its one window is '"
          + at.window().windowOf(at.at(), at.zone()).key()
          + "'.";
    }
    String example = d.window().windowOf(now, d.zone()).key();
    return "its "
        + d.window()
        + " windows (zone "
        + d.zone()
        + ") have keys like '"
        + example
        + "' (the window of now).";
  }
}
