package dev.carillon.client.model;

import dev.carillon.api.Stability;

/**
 * The answer to a cancel or a re-run.
 *
 * @param previousStatus the status the instance left
 * @param published for a re-run, whether Kafka acknowledged it now (else the retry service's
 *     stranded scan publishes it); false for a cancel
 * @param instance the instance as the change left it
 */
@Stability.Evolving
public record InstanceChange(String previousStatus, boolean published, InstanceView instance) {}
