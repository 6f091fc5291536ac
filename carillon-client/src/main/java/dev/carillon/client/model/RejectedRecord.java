package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;

/**
 * A record on the config topic that the retry service refuses: it did not replace the value before
 * it.
 *
 * <p>{@code at} is UTC only: a config record belongs to the system, not to a task's wall clock.
 *
 * @param value the record's text, cut to 1,000 characters
 * @param problems why, one line per problem naming the field and the value
 * @param actor who wrote it, or null when unknown
 */
@Stability.Evolving
public record RejectedRecord(
    String key, String value, long offset, Instant at, List<String> problems, String actor) {
  public RejectedRecord {
    problems = List.copyOf(problems);
  }
}
