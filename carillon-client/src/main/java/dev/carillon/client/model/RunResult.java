package dev.carillon.client.model;

import dev.carillon.api.Stability;

/**
 * The answer to a run-now.
 *
 * @param created true when this call created the instance (201); false when an earlier call with
 *     the same {@code Idempotency-Key} did (200)
 * @param published whether Kafka acknowledged its id now (if not, the dispatch sweep publishes it)
 * @param instance the MANUAL instance
 */
@Stability.Evolving
public record RunResult(boolean created, boolean published, InstanceView instance) {}
