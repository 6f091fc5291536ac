package dev.carillon.client.model;

import dev.carillon.api.Stability;

/**
 * A task's timeout as its evidence suggests ({@code GET /tasks/{id}/suggest-timeout}): the
 * nearest-rank P99 of its latest successful run durations times {@code factor}, rounded up to a
 * whole second. With fewer than {@code minSamples} successes there is no suggestion: {@code p99}
 * and {@code suggestedTimeout} are null. Durations are ISO-8601 ({@code PT4M57S}).
 *
 * @param taskId the task
 * @param window how many of the latest successes were asked for
 * @param sampleSize how many there were
 * @param minSamples the fewest that make a P99
 * @param p99 the observed P99, or null
 * @param factor the margin over the P99 (1.5)
 * @param suggestedTimeout P99 × factor rounded up to a second, or null
 * @param currentTimeout the task's timeout now, or null when its definition is not valid
 * @param currentBelowP99 whether the task's timeout is below the observed P99
 */
@Stability.Evolving
public record TimeoutSuggestionView(
    String taskId,
    int window,
    int sampleSize,
    int minSamples,
    String p99,
    double factor,
    String suggestedTimeout,
    String currentTimeout,
    boolean currentBelowP99) {}
