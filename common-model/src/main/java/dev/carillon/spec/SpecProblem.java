package dev.carillon.spec;

import dev.carillon.model.task.Problem;
import java.util.Objects;

/**
 * One problem in a spec text: where it is, which field, which value, and the rule it breaks. The
 * same problem reads the same from a YAML file and from a JSON request.
 *
 * @param source names the text: a file name, or e.g. {@code <request>}
 * @param line the 1-based line of the value (of the key, for an unknown key); 0 when the problem is
 *     about the text as a whole and has no position
 * @param column the 1-based column, 0 when {@code line} is
 * @param task the task as the user knows it, {@code task 'daily-digest'}, or {@code tasks[2]} when
 *     it has no usable id; null when the problem is not about one task
 * @param field the field path ({@code schedule.zone}, {@code retry.delays[1]}); null when the
 *     problem is not about one field
 * @param value the rejected value as written; null when missing
 * @param message the rule the value breaks
 */
public record SpecProblem(
    String source, int line, int column, String task, String field, Object value, String message) {
  public SpecProblem {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(message, "message");
  }

  /**
   * The problem as one line, compiler style, values cut to 80 characters: {@code tasks.yaml:7:33:
   * task 'bad-zone': schedule.zone='Mars/Olympus': is not an IANA time zone}.
   */
  public String text() {
    StringBuilder sb = new StringBuilder(source);
    if (line > 0) {
      sb.append(':').append(line).append(':').append(column);
    }
    sb.append(": ");
    if (task != null) {
      sb.append(task).append(": ");
    }
    if (field == null) {
      sb.append(message);
    } else {
      Object shown = value == null ? null : Problems.abbreviate(String.valueOf(value));
      sb.append(new Problem(field, shown, message));
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return text();
  }
}
