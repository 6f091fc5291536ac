package dev.carillon.model.task;

import dev.carillon.model.Durations;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The value rules of a task definition and its trigger, shared by the records (which throw every
 * problem at once) and the spec reader (which reports every problem with its line and column), so
 * that both say the same thing. A rule returns what is wrong with a value, or empty; the caller
 * names the field and picks the value to show (the reader shows it as the user wrote it).
 *
 * <p>Field names in the problems built here are the paths a user writes in a task spec ({@code
 * after[2]}, {@code condition.params}).
 */
public final class TaskRules {
  private TaskRules() {}

  public static Optional<String> id(String value) {
    return matches(TaskDefinition.ID_PATTERN, value);
  }

  public static Optional<String> handler(String value) {
    return matches(TaskDefinition.HANDLER_PATTERN, value);
  }

  public static Optional<String> queue(String value) {
    return matches(TaskDefinition.QUEUE_PATTERN, value);
  }

  public static Optional<String> catchup(Duration value) {
    return range(value, Duration.ZERO, TaskDefinition.MAX_CATCHUP);
  }

  public static Optional<String> timeout(Duration value) {
    return range(value, TaskDefinition.MIN_TIMEOUT, TaskDefinition.MAX_TIMEOUT);
  }

  /**
   * Params: one JSON object of at most {@link TaskDefinition#MAX_PARAMS_BYTES} bytes of UTF-8. The
   * size is checked first and the text is not echoed when it is too large.
   *
   * @param field {@code params}, or {@code condition.params}
   */
  public static Optional<Problem> params(String field, String json) {
    int bytes = json.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > TaskDefinition.MAX_PARAMS_BYTES) {
      return Optional.of(
          new Problem(
              field,
              "<" + bytes + " bytes>",
              "is larger than "
                  + TaskDefinition.MAX_PARAMS_BYTES
                  + " bytes; keep large inputs in an artifact store"));
    }
    return JsonSyntax.objectProblem(json).map(m -> new Problem(field, abbreviate(json), m));
  }

  /**
   * The upstreams of a dependency trigger: at least one, each a task id, none twice, and not the
   * task itself.
   *
   * @param taskId the task the list belongs to, or null when not known yet
   * @param upstreams the ids as given; a null element is skipped (the caller reports it: it is a
   *     value the reader could not read as text, or one a record was given as null)
   * @return one problem per broken rule, named {@code after} or {@code after[i]}
   */
  public static List<Problem> upstreams(String taskId, List<String> upstreams) {
    List<Problem> problems = new ArrayList<>();
    if (upstreams.isEmpty()) {
      problems.add(new Problem("after", upstreams, "must list at least one task id"));
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < upstreams.size(); i++) {
      String up = upstreams.get(i);
      String field = "after[" + i + "]";
      if (up == null) {
        continue;
      }
      if (!TaskDefinition.ID_PATTERN.matcher(up).matches()) {
        problems.add(
            new Problem(
                field, up, "must be a task id matching " + TaskDefinition.ID_PATTERN.pattern()));
      } else if (up.equals(taskId)) {
        problems.add(new Problem(field, up, "a task cannot depend on itself"));
      } else if (!seen.add(up)) {
        problems.add(new Problem(field, up, "is listed twice"));
      }
    }
    return problems;
  }

  /**
   * The upstreams that name the task itself, as problems of {@code after[i]}; the part of {@link
   * #upstreams} that needs the task's id.
   */
  public static List<Problem> selfDependencies(String taskId, List<String> upstreams) {
    List<Problem> problems = new ArrayList<>();
    for (int i = 0; i < upstreams.size(); i++) {
      if (upstreams.get(i).equals(taskId)) {
        problems.add(new Problem("after[" + i + "]", taskId, "a task cannot depend on itself"));
      }
    }
    return problems;
  }

  public static Optional<String> topic(String value) {
    return matches(EventTrigger.TOPIC_PATTERN, value);
  }

  /** An event trigger's coalescing bucket: zero (none) up to 7 days. */
  public static Optional<String> coalesce(Duration value) {
    return range(value, Duration.ZERO, TaskDefinition.MAX_CATCHUP);
  }

  /** An event trigger's rate limit as written: a positive, finite number. */
  public static Optional<String> ratePerSecond(double value) {
    return value > 0 && !Double.isInfinite(value)
        ? Optional.empty()
        : Optional.of("must be a positive number");
  }

  public static Optional<String> conditionType(String value) {
    return matches(TaskDefinition.HANDLER_PATTERN, value);
  }

  /** A condition's poll interval: 1 s to 24 h. */
  public static Optional<String> every(Duration value) {
    if (value == null) {
      return Optional.of("is required (e.g. 5m)");
    }
    return value.compareTo(ConditionTrigger.MIN_EVERY) < 0
            || value.compareTo(ConditionTrigger.MAX_EVERY) > 0
        ? Optional.of("must be between 1s and 24h")
        : Optional.empty();
  }

  /** A one-shot's instant: a whole second from 2000 to 2099. */
  public static Optional<String> at(Instant value) {
    if (value.getNano() != 0) {
      return Optional.of("must be a whole second (no fraction)");
    }
    return value.isBefore(AtTrigger.EARLIEST) || !value.isBefore(AtTrigger.LATEST)
        ? Optional.of("must be from " + AtTrigger.EARLIEST + " to before " + AtTrigger.LATEST)
        : Optional.empty();
  }

  public static Optional<String> debounce(long value) {
    return value >= 1 && value <= ConditionTrigger.MAX_DEBOUNCE
        ? Optional.empty()
        : Optional.of("must be a whole number from 1 to " + ConditionTrigger.MAX_DEBOUNCE);
  }

  /** Adds {@code problem}, if any, as a problem of {@code field} showing {@code value}. */
  static void check(List<Problem> problems, String field, Object value, Optional<String> problem) {
    problem.ifPresent(m -> problems.add(new Problem(field, value, m)));
  }

  /** Adds "is required" for a missing value; true when the value is present. */
  static boolean required(List<Problem> problems, String field, Object value) {
    if (value == null) {
      problems.add(new Problem(field, null, "is required"));
      return false;
    }
    return true;
  }

  /** Throws every problem at once, naming {@code taskId} (null when the task is not known yet). */
  static void throwIfAny(String taskId, List<Problem> problems) {
    if (!problems.isEmpty()) {
      throw new InvalidTaskException(taskId, problems);
    }
  }

  private static Optional<String> matches(Pattern pattern, String value) {
    return value != null && pattern.matcher(value).matches()
        ? Optional.empty()
        : Optional.of("must match " + pattern.pattern());
  }

  private static Optional<String> range(Duration value, Duration min, Duration max) {
    if (value == null) {
      return Optional.of("is required");
    }
    return value.compareTo(min) < 0 || value.compareTo(max) > 0
        ? Optional.of("must be between " + Durations.format(min) + " and " + Durations.format(max))
        : Optional.empty();
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
