package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.util.List;

/**
 * An error, as {@code application/problem+json} (RFC 9457). Every 4xx names the field and the value
 * at fault in {@link #problems}; nothing was changed.
 *
 * @param type a URI naming the kind of error ({@code about:blank} when the status says it all)
 * @param title the status's short text, e.g. {@code Bad Request}
 * @param status the HTTP status
 * @param detail one sentence for people
 * @param problems each field at fault; empty for errors about no field (401, 404 of a path, 429)
 */
@Stability.Evolving
public record Problem(
    String type, String title, int status, String detail, List<FieldProblem> problems) {
  public Problem {
    problems = problems == null ? List.of() : List.copyOf(problems);
  }
}
