package dev.carillon.client.model;

import dev.carillon.api.Stability;

/**
 * The retry-plan calculator's question ({@code POST /retry-plan}): how many exponential retries fit
 * in {@code recovery}?
 *
 * @param recovery the acceptable time from the first failure to the start of the last retry, e.g.
 *     {@code 1h}
 * @param initial the first wait, e.g. {@code 5m}
 * @param multiplier the growth per retry, more than 1 and at most 10
 * @param cap the longest single wait, or null for no cap beyond the policy maximum
 */
@Stability.Evolving
public record RetryPlanRequest(String recovery, String initial, Double multiplier, String cap) {}
