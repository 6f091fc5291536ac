package dev.carillon.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.api.Stability;
import java.util.List;

/**
 * The retry-plan calculator's answer.
 *
 * @param retries how many retries fit
 * @param lastStartsAfter when the last retry starts, counted from the first failure
 * @param steps each retry's wait and start
 * @param policy an EXPONENTIAL policy that retries at exactly these waits, to use as {@code
 *     retry/<task>}
 */
@Stability.Evolving
public record RetryPlanView(
    String recovery,
    String initial,
    double multiplier,
    String cap,
    int retries,
    String lastStartsAfter,
    List<Step> steps,
    JsonNode policy) {
  public RetryPlanView {
    steps = List.copyOf(steps);
  }

  /** One planned retry: its number, its delay, and when it starts after the first failure. */
  @Stability.Evolving
  public record Step(int retry, String delay, String startsAfter) {}
}
