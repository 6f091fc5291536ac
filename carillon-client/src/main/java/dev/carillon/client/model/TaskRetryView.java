package dev.carillon.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.api.Stability;
import java.util.List;

/**
 * The retry policy that decides a task's failures now, where it comes from, and what it would do to
 * an instance whose every attempt fails at once ({@code GET /tasks/{id}/retry}).
 *
 * @param source {@code TASK_OVERRIDE} ({@code retry/<task>} on the config topic), {@code
 *     DEFINITION}, {@code DEFAULT_OVERRIDE} ({@code retry/default}) or {@code NONE}
 * @param version the override's offset on the config topic, or the definition's version
 * @param description e.g. {@code EXPONENTIAL from retry/digest@12}
 * @param policy the policy as a task spec writes it
 * @param steps the retries, without jitter, counted from a failure now in the current window
 * @param deadReason why the failure after the last step is DEAD
 */
@Stability.Evolving
public record TaskRetryView(
    String taskId,
    String source,
    long version,
    String description,
    JsonNode policy,
    List<Step> steps,
    String deadReason) {

  /**
   * One planned retry.
   *
   * @param retry 1 for the first
   * @param delay after the failure before it, e.g. {@code 10m}
   * @param after after the first failure
   * @param reason the policy's words for it
   */
  @Stability.Evolving
  public record Step(int retry, String delay, String after, String reason) {}
}
