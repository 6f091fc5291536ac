package dev.carillon.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.api.Stability;

/**
 * One task definition with where it stands.
 *
 * @param trigger what wakes it
 * @param zone the zone its windows are computed in
 * @param window its window kind, e.g. {@code DAILY}
 * @param overlap {@code SKIP} or {@code ALLOW}
 * @param catchup how far back missed fire times still run, e.g. {@code 1h}
 * @param timeout the longest one attempt may run
 * @param retry the retry policy as JSON
 * @param params the JSON object handed to the agent
 * @param version grows with every change
 * @param nextFire the next fire time (CRON tasks that are not paused), else null
 * @param lastOutcome the most recently finished instance, or null when none has finished
 * @param error set (and most other fields null) when the stored row no longer validates
 */
@Stability.Evolving
public record TaskView(
    String id,
    String handler,
    TriggerView trigger,
    String zone,
    String window,
    String overlap,
    String catchup,
    String timeout,
    JsonNode retry,
    JsonNode params,
    boolean paused,
    long version,
    FireView nextFire,
    OutcomeView lastOutcome,
    String error) {}
