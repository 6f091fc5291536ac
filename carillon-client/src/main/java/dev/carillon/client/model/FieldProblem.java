package dev.carillon.client.model;

import dev.carillon.api.Stability;

/**
 * One field at fault.
 *
 * @param field where, as a user writes it: {@code schedule.cron}, {@code limit}, {@code
 *     Idempotency-Key}, {@code tasks[2].timeout}, {@code body}
 * @param value the rejected value as text, or null when it was missing
 * @param message the rule it breaks
 * @param line the line in a request body (YAML or JSON), when known
 * @param column the column in that line, when known
 */
@Stability.Evolving
public record FieldProblem(
    String field, String value, String message, Integer line, Integer column) {
  /** A problem without a position. */
  public static FieldProblem of(String field, Object value, String message) {
    return new FieldProblem(
        field, value == null ? null : String.valueOf(value), message, null, null);
  }
}
