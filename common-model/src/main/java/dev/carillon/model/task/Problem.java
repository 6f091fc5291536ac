package dev.carillon.model.task;

/**
 * One validation problem: which field, which value, and what is wrong with it.
 *
 * @param field the field's path as a user writes it, e.g. {@code schedule.cron} or {@code
 *     retry.delays[1]}
 * @param value the rejected value as given (may be {@code null})
 * @param message what rule the value breaks
 */
public record Problem(String field, Object value, String message) {
  @Override
  public String toString() {
    return field + "=" + (value == null ? "<missing>" : "'" + value + "'") + ": " + message;
  }
}
